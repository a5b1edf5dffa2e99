#include "render/mail_message.hpp"
