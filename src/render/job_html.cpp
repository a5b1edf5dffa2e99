#include "render/job_html.hpp"
