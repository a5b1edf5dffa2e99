// The fleet view's routes: /api/v1/efficiency (JSON) and /efficiency (HTML),
// both over the job archive's sums (sources/archive_efficiency.hpp).
//
// Who reads what: with auth none, everyone everything (a loopback server);
// admins everything; the managers of an account ([serve] account_manager)
// that account's figures (?account=A, which they may group by user or
// partition); anyone else their own jobs' figures only. A query a caller may
// not make is refused (403), never silently narrowed, except that a caller
// who names no filter gets what they may read.
#include "core/time_text.hpp"
#include "model/job_id.hpp"
#include "render/efficiency_render.hpp"
#include "serve/api.hpp"
#include "sources/archive_efficiency.hpp"

#include <algorithm>
#include <chrono>

namespace petricore::serve {

struct Api::FleetAnswer {
  FleetEfficiencyPtr fleet;
  std::optional<HttpResponse> refusal;
  // The query as asked, for the page's form and links.
  std::string by, since, until, user, account;
};

namespace {

constexpr const char* kDefaultSince = "30d";

std::string param(const HttpRequest& request, const char* name, const char* fallback = "") {
  const std::string* value = request.query_param(name);
  return value != nullptr && !value->empty() ? *value : fallback;
}

}  // namespace

Api::FleetAnswer Api::fleet(const HttpRequest& request) {
  FleetAnswer answer;
  auto refuse = [&answer](HttpResponse response) {
    answer.refusal = std::move(response);
    return std::move(answer);
  };
  Identity who;
  if (auto decision = authorizer_.identify(request, who); !decision.allowed())
    return refuse(refusal_response(decision));
  if (backends_.archive == nullptr) {
    return refuse(json_error(404, "this server keeps no job archive ([archive] store none): no fleet view"));
  }

  answer.by = param(request, "by", "account");
  answer.since = param(request, "since", kDefaultSince);
  answer.until = param(request, "until", "now");
  answer.user = param(request, "user");
  answer.account = param(request, "account");
  sources::EfficiencyQuery query;
  auto by = model::parse_grouping(answer.by);
  if (!by) return refuse(json_error(400, "invalid by: expected user, account or partition"));
  query.by = *by;
  // Whole minutes: "since=90d" asked twice in a minute is the same query.
  const std::int64_t now = epoch_seconds() / 60 * 60;
  auto since = parse_time_point(answer.since, now);
  if (!since) return refuse(json_error(400, std::string("invalid since: expected ") + kTimePointForms));
  auto until = parse_time_point(answer.until, now);
  if (!until) return refuse(json_error(400, std::string("invalid until: expected ") + kTimePointForms));
  if (*since >= *until) return refuse(json_error(400, "invalid since: it must be before until"));
  query.since = *since;
  query.until = *until;
  if (!answer.user.empty() && !model::valid_user_name(answer.user)) {
    return refuse(json_error(400, "invalid user: 1-32 of A-Z a-z 0-9 . _ -, not starting with '-'"));
  }
  if (!answer.account.empty() && !model::valid_user_name(answer.account)) {
    return refuse(json_error(400, "invalid account: 1-32 of A-Z a-z 0-9 . _ -, not starting with '-'"));
  }
  if (!answer.user.empty()) query.user = answer.user;
  if (!answer.account.empty()) query.accounts = {answer.account};

  if (authorizer_.mode() == AuthMode::Header) {
    AccessDecision admin = authorizer_.is_admin(who.user);
    if (admin.access == Access::Unavailable) return refuse(refusal_response(admin));
    if (!admin.allowed()) {
      const std::vector<std::string> managed = authorizer_.managed_accounts(who.user);
      const bool manages =
          !answer.account.empty() && std::find(managed.begin(), managed.end(), answer.account) != managed.end();
      if (!answer.account.empty() && !manages) {
        return refuse(json_error(403, "user " + who.user + " may not read account " + answer.account + "'s figures"));
      }
      if (!answer.user.empty() && answer.user != who.user && !manages) {
        return refuse(json_error(403, "user " + who.user + " may not read user " + answer.user + "'s figures"));
      }
      // Without a managed account, what they may read is their own jobs.
      if (!manages) query.user = who.user;
    }
  }

  std::string key = std::string(model::grouping_name(query.by)) + "|" + std::to_string(query.since) + "|" +
                    std::to_string(query.until) + "|" + query.user.value_or("*") + "|";
  for (const std::string& account : query.accounts) key += account + ",";
  if (FleetEfficiencyPtr hit = efficiency_cache_.find(key)) {
    answer.fleet = hit;
    return answer;
  }
  archive::SharedArchive& shared = *backends_.archive;
  auto computed = shared.with([&query, &shared](sources::JobArchive&, sources::SqlDatabase& db) {
    return sources::fleet_efficiency(db, shared.cluster(), query);
  });
  if (!computed) return refuse(error_response(computed.error()));
  answer.fleet = std::make_shared<const model::FleetEfficiency>(std::move(*computed));
  efficiency_cache_.put(key, answer.fleet);
  return answer;
}

HttpResponse Api::efficiency(const HttpRequest& request) {
  FleetAnswer answer = fleet(request);
  if (answer.refusal) return std::move(*answer.refusal);
  HttpResponse response = json_response(render::efficiency_json(*answer.fleet));
  response.headers.push_back({"Cache-Control", "private, max-age=60"});
  return response;
}

HttpResponse Api::efficiency_page(const HttpRequest& request) {
  FleetAnswer answer = fleet(request);
  if (answer.refusal) return std::move(*answer.refusal);
  render::EfficiencyPageLinks links;
  links.base_url = base_url(request);
  links.by = answer.by;
  links.since = answer.since;
  links.until = answer.until;
  HttpResponse response;
  response.content_type = "text/html; charset=utf-8";
  response.body = render::efficiency_html(*answer.fleet, links);
  response.headers.push_back({"Cache-Control", "private, max-age=60"});
  return response;
}

}  // namespace petricore::serve
