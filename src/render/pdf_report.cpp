#include "render/pdf_report.hpp"
