// The console's logins: reviewers' (its users table, or the directory
// by their groups) and the set-up of the senders' self-service override
// (console_impl.h).
#include <string>

#include "absl/strings/str_cat.h"
#include "cli/console/console_impl.h"
#include "cli/console/override_link.h"
#include "cli/console/safe_next.h"
#include "cli/gateway/directory_groups.h"
#include "cli/policy/policy_file.h"
#include "shingler/user_name.h"

namespace leakhound {

void ConsoleServerImpl::LoginGet(const HttpRequest& req, HttpResponse& res) {
  const std::string token = RandomToken();
  res.SetHeader("Set-Cookie",
                absl::StrCat(kLoginCookie, "=", token, "; Path=/login",
                             CookieAttributes()));
  SendHtml(res, 200, LoginPage(token, "", SafeNext(req.Query("next"))));
}

void ConsoleServerImpl::LoginPost(const HttpRequest& req, HttpResponse& res) {
  // One name for the lockout, the users table, the directory, the session
  // and the audit log (shingler/user_name.h): " adm" is refused, "ADM" is
  // "adm".
  const absl::StatusOr<std::string> canonical = UserName(req.Field("user"));
  const std::string user = canonical.ok() ? *canonical : "";
  const std::string next = SafeNext(req.Field("next"));
  const std::string cookie = CookieValue(req, kLoginCookie);
  auto again = [&](int status, const std::string& error) {
    const std::string token = RandomToken();
    res.SetHeader("Set-Cookie",
                  absl::StrCat(kLoginCookie, "=", token, "; Path=/login",
                               CookieAttributes()));
    SendHtml(res, status, LoginPage(token, error, next));
  };
  if (cookie.empty() || !TokensEqual(req.Field("csrf"), cookie) ||
      !SameOrigin(req)) {
    return again(403, "The login form expired. Try again.");
  }
  if (!canonical.ok()) {
    log(absl::StrCat("login refused: ", canonical.status().message(), ": '",
                     LogField(req.Field("user")), "'"));
    return again(
        400,
        absl::StrCat("Wrong user name: ", canonical.status().message(), "."));
  }
  const auto now = ConsoleClock::now();
  const std::string client = ClientAddress(req);
  if (!limiter.Allowed(client, user, now)) {
    log(absl::StrCat("login refused (rate limit): user '", LogField(user),
                     "' from ", LogField(client)));
    return again(429, "Too many failed logins. Wait a few minutes.");
  }
  std::optional<ConsoleUser> found;
  {
    absl::MutexLock lock(&store_mu);
    auto u = store->GetUser(user);
    if (!u.ok()) return again(503, std::string(u.status().message()));
    found = *u;
  }
  if (!found && directory) {
    // Not a console user: the directory decides, and the role is that of
    // the highest console group the user is in.
    auto role = DirectoryLogin(user, req.Field("password"));
    if (!role.ok() && !absl::IsPermissionDenied(role.status())) {
      log(absl::StrCat("login of '", LogField(user),
                       "': ", role.status().message()));
      return again(503, "The directory cannot be reached. Try again later.");
    }
    if (role.ok()) {
      found = ConsoleUser{user, *role, kDirectoryCredential, 0};
    }
  }
  const bool by_directory =
      found.has_value() && found->password_hash == kDirectoryCredential;
  const bool ok = by_directory ||
                  (CheckPassword(req.Field("password"),
                                 found ? found->password_hash : dummy_hash) &&
                   found.has_value());
  if (!ok) {
    limiter.Failed(client, user, now);
    log(absl::StrCat("login failed: user '", LogField(user), "' from ",
                     LogField(client)));
    absl::MutexLock lock(&store_mu);
    store->Audit(user, "login failed", 0, client).IgnoreError();
    return again(401, "Wrong user or password.");
  }
  limiter.Succeeded(user);
  const ConsoleSession s =
      sessions.Create(found->name, found->role, found->password_hash, now);
  log(absl::StrCat("login: user '", LogField(s.user), "' (", s.role,
                   by_directory ? ", directory" : "", ") from ",
                   LogField(client)));
  {
    absl::MutexLock lock(&store_mu);
    store->Audit(s.user, "login", 0, client).IgnoreError();
  }
  res.SetHeader("Set-Cookie", absl::StrCat(kSessionCookie, "=", s.id,
                                           "; Path=/", CookieAttributes()));
  res.SetRedirect(next, 303);
}

absl::Status ConsoleServerImpl::SetUpLogins() {
  OverrideDeskOptions desk;
  if (!options.policy_file.empty()) {
    // A broken policy file is shown on /policy; it only has to give the
    // directory here when it parses.
    auto policy = ReadPolicyFile(options.policy_file);
    if (policy.ok() && policy->directory) {
      auto opened = OpenDirectory(*policy->directory);
      if (!opened.ok()) return opened.status();
      directory.emplace(*std::move(opened));
      directory_roles = policy->directory->roles;
      log(absl::StrCat("directory logins: ", policy->directory->url, ", ",
                       directory_roles.size(), " console groups"));
    }
    if (policy.ok()) {
      for (const PolicyRule& r : policy->rules) {
        desk.rule_texts[r.name] = r.reject_text;
      }
    }
  }
  std::string key_file = options.link_key_file;
  if (key_file.empty() && !IsDatabaseUri(options.incidents_path)) {
    key_file = options.incidents_path + ".link-key";
  }
  if (!key_file.empty() && !options.public_url.empty() &&
      !options.sendmail.empty()) {
    auto key = LoadLinkKey(key_file);
    if (!key.ok()) return key.status();
    desk.link_key = *key;
    desk.public_url = options.public_url;
    desk.sendmail = options.sendmail;
  }
  OverrideDeskHooks hooks;
  hooks.client_address = [this](const HttpRequest& r) {
    return ClientAddress(r);
  };
  hooks.cookie_attributes = CookieAttributes();
  hooks.release = [this](int64_t id, const std::string& who) {
    return ActOnHeld(id, true, "sender:" + who);
  };
  hooks.log = log;
  IncidentStore* shared = nullptr;
  {
    absl::MutexLock lock(&store_mu);
    shared = store.get();
  }
  overrides = std::make_unique<OverrideDesk>(
      std::move(desk), std::move(hooks), shared, &store_mu,
      directory ? &*directory : nullptr, &limiter);
  return absl::OkStatus();
}

}  // namespace leakhound
