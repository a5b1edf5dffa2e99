#include "render/job_charts.hpp"
