// OverrideDesk: the console's self-service override (docs/overrides.md).
// A sender whose mail a rule with `override = "justify"` held opens
// /override/REFERENCE (the link in their notice), proves they sent it
// (a directory login whose addresses include the message's sender, or a
// one-time link mailed to the sender, OverrideLink), reads what was held
// (never protected text) and releases it with a justification: the store
// records the override (IncidentStore::UseOverride: once, before its
// deadline, within the rule's limits) and the console releases the mail as
// a reviewer would. Senders' sessions are their own (cookie lh_sender,
// path /override, bound to one incident), apart from the reviewers'.
// A blocked upload's coaching form posts to /coach/REFERENCE?t=TOKEN: the
// token the block page carried is the proof (its SHA-256 is the
// incident's), and the grant lets that user retry that body to that host
// once (IncidentStore::TakeWebGrant).
//
// Thread-safety: the handlers run on the HTTP server's threads; the store
// is used under the console's store mutex.
#ifndef LEAKHOUND_CLI_CONSOLE_OVERRIDE_DESK_H_
#define LEAKHOUND_CLI_CONSOLE_OVERRIDE_DESK_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "cli/console/http_server.h"
#include "cli/console/session_table.h"
#include "cli/gateway/directory.h"
#include "cli/incidents/incident_store.h"

namespace leakhound {

class WorkPool;

struct OverrideDeskOptions {
  // HMAC key of the one-time links (OverrideLink); "": no links.
  std::string link_key;
  // The console's address as senders reach it ("https://dlp.example.com"),
  // for the links mailed; "": no links.
  std::string public_url;
  // sendmail and its leading arguments; empty: no links.
  std::vector<std::string> sendmail;
  std::string from = "leakhound";
  // The policy's rules' texts (name -> reject_text), shown to the sender.
  std::map<std::string, std::string> rule_texts;
};

// What the desk needs of the console around it. Every hook must be
// thread-safe and outlive the desk.
struct OverrideDeskHooks {
  std::function<std::string(const HttpRequest&)> client_address;
  std::string cookie_attributes;  // "; HttpOnly; SameSite=Strict[; Secure]"
  // Releases incident `id`'s held mail for `who`: Postfix's report, or
  // that the node holding it was asked to.
  std::function<absl::StatusOr<std::string>(int64_t id, const std::string& who)>
      release;
  std::function<void(const std::string&)> log;
};

class OverrideDesk {
 public:
  // REQUIRES: `store` and `store_mu` (guarding it), `directory` (may be
  // null: no directory logins) and `limiter` outlive the desk.
  OverrideDesk(OverrideDeskOptions options, OverrideDeskHooks hooks,
               IncidentStore* store, absl::Mutex* store_mu,
               const Directory* directory, LoginLimiter* limiter);

  // Adds the routes under /override/ to `http`; logins run on `pool`.
  void Routes(HttpServer& http, WorkPool* pool);

  // Whether a POST to `path` is the desk's (it needs no reviewer session).
  static bool Owns(const std::string& path);

 private:
  struct Held {
    Incident incident;
    std::string reference;
  };
  // The incident of `channel` ("mail", "web") under `reference` with an
  // override offered; else answers 404 and returns nullopt.
  std::optional<Held> Find(const std::string& reference,
                           const std::string& channel, HttpResponse& res);
  // The sender's session for `reference`, if any.
  std::optional<ConsoleSession> SenderSession(const HttpRequest& req,
                                              const std::string& reference);
  void Show(const HttpRequest& req, HttpResponse& res);
  void Login(const HttpRequest& req, HttpResponse& res);
  void SendLink(const HttpRequest& req, HttpResponse& res);
  void Justify(const HttpRequest& req, HttpResponse& res);
  // A blocked upload's coaching (web): GET shows the form, POST grants the
  // retry when the block page's token (?t=) is the incident's.
  void Coach(const HttpRequest& req, HttpResponse& res);
  // Opens the sender's session for `held` and goes to its page.
  void OpenSession(const Held& held, const std::string& who, HttpResponse& res);
  // The login page, with a fresh form token.
  void LoginPage(HttpResponse& res, const std::string& reference, int status,
                 const std::string& error, const std::string& notice);
  // Whether the pre-login form's token matches its cookie.
  bool FormTokenOk(const HttpRequest& req) const;

  const OverrideDeskOptions options_;
  const OverrideDeskHooks hooks_;
  IncidentStore* const store_;
  absl::Mutex* const store_mu_;
  const Directory* const directory_;
  LoginLimiter* const limiter_;
  SessionTable sessions_{std::chrono::minutes(30), std::chrono::hours(2)};
  absl::Mutex links_mu_;
  // When a link was last mailed per reference: at most one per minute.
  std::map<std::string, ConsoleClock::time_point> mailed_
      ABSL_GUARDED_BY(links_mu_);
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_OVERRIDE_DESK_H_
