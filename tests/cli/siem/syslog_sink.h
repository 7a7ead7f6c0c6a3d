// SyslogSink: a syslog receiver on a loopback TCP port for tests; reads
// RFC 6587 octet-counted frames on a thread, one connection at a time, and
// can drop the connection or stop listening to play a receiver going down.
//
// Thread-safety: every method may be called from any thread.
#ifndef LEAKHOUND_TESTS_CLI_SIEM_SYSLOG_SINK_H_
#define LEAKHOUND_TESTS_CLI_SIEM_SYSLOG_SINK_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace leakhound {

class SyslogSink {
 public:
  // Listens on `port` (0: any free one).
  explicit SyslogSink(int port = 0) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int on = 1;
    setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    listen(fd_, 8);
    socklen_t length = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &length);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { Run(); });
  }
  ~SyslogSink() {
    stop_ = true;
    thread_.join();
    close(fd_);
  }
  int port() const { return port_; }
  std::string url() const { return "tcp://127.0.0.1:" + std::to_string(port_); }
  std::vector<std::string> frames() {
    std::lock_guard<std::mutex> lock(mu_);
    return frames_;
  }
  // Waits up to 10 s for `n` frames.
  bool WaitFor(size_t n) {
    for (int i = 0; i < 1000; ++i) {
      if (frames().size() >= n) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  // Closes the connection being read (the next is accepted).
  void DropConnection() { drop_ = true; }

 private:
  void Run() {
    int client = -1;
    std::string buffer;
    while (!stop_) {
      if (client < 0) {
        pollfd p{fd_, POLLIN, 0};
        if (poll(&p, 1, 20) > 0) client = accept(fd_, nullptr, nullptr);
        continue;
      }
      if (drop_) {
        close(client);
        client = -1;
        buffer.clear();
        drop_ = false;
        continue;
      }
      pollfd p{client, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      char chunk[65536];
      const ssize_t n = recv(client, chunk, sizeof chunk, 0);
      if (n <= 0) {
        close(client);
        client = -1;
        buffer.clear();
        continue;
      }
      buffer.append(chunk, static_cast<size_t>(n));
      Parse(buffer);
    }
    if (client >= 0) close(client);
  }
  void Parse(std::string& buffer) {
    for (;;) {
      const size_t space = buffer.find(' ');
      if (space == std::string::npos) return;
      const size_t length =
          std::strtoul(buffer.substr(0, space).c_str(), nullptr, 10);
      if (buffer.size() < space + 1 + length) return;
      std::lock_guard<std::mutex> lock(mu_);
      frames_.push_back(buffer.substr(space + 1, length));
      buffer.erase(0, space + 1 + length);
    }
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<bool> drop_{false};
  std::mutex mu_;
  std::vector<std::string> frames_;
  std::thread thread_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_TESTS_CLI_SIEM_SYSLOG_SINK_H_
