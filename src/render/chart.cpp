#include "render/chart.hpp"
