// ServiceNotifier: tells systemd how the daemon is doing (sd_notify): ready
// once it serves, stopping when it stops, and watchdog pings when the unit
// sets WatchdogSec. Outside systemd (no $NOTIFY_SOCKET) every call does
// nothing. The one file that calls libsystemd.
//
// Thread-safety: call from one thread (the daemon's main loop).
#ifndef LEAKHOUND_CLI_GATEWAY_SERVICE_NOTIFIER_H_
#define LEAKHOUND_CLI_GATEWAY_SERVICE_NOTIFIER_H_

#include <chrono>
#include <string>

namespace leakhound {

class ServiceNotifier {
 public:
  ServiceNotifier();  // reads the watchdog interval systemd set, if any

  void Ready(const std::string& status);
  void Status(const std::string& status);
  void Stopping();
  // Pings the watchdog when half its interval has passed since the last
  // ping; call it from a loop that turns at least that often.
  void MaybePing();

  bool watchdog() const { return interval_.count() > 0; }

 private:
  std::chrono::microseconds interval_{0};
  std::chrono::steady_clock::time_point last_ping_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_SERVICE_NOTIFIER_H_
