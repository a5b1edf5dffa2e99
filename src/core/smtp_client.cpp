#include "core/smtp_client.hpp"
