// serve_bench: tfn-serve against the same bundle run in process (the issue's
// "bench/serve", bench/serve/README.md). For the trivial model (y = x + 1,
// f32[?,4]) and the mlp (f32[?,784] -> f32[?,10]) it measures in process
// first (Method::Run on a Session of the bundle), then starts tfn-serve as a
// child process and drives it with C++ clients, 1 and 64 at once: gRPC
// through the generated stubs (raw_input_contents, a channel and so a
// connection per client) and REST through cpp-httplib's blocking keep-alive
// client (the binary tensor extension, as Triton's client sends it; JSON too
// for the trivial model). Every answer is checked against the in-process
// output; only correct answers count, and any failure makes the exit code 1.
//
//   serve_bench --serve build/serve/tfn-serve --export build/tools/tfn-export
//               --workdir /tmp/serve_bench [--seconds 3] [--warmup 1] [--threads 1]
//               [--delays 200,1000,2000] [--filter SUBSTRING] [--connect-burst 0|1]
//
// It prints one Markdown table: per scenario p50/p99 latency, throughput, the
// in-process baseline beside it, the added p50 and the throughput ratio;
// and, to explain them, a loopback TCP echo (the floor under any server
// here), the server's own Infer time and batch sizes from its /metrics, the
// CPU time the server and the clients spent per request (both run on this
// machine's cores, which is what limits throughput here) and what other
// jobs took. Results: bench/RESULTS.md, "tfn-serve".
#include <absl/synchronization/mutex.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "grpc_service.grpc.pb.h"
#include "runtime/runtime.h"
#include "tfn/tfn.h"

namespace {

namespace runtime = tfn::runtime;
using Clock = std::chrono::steady_clock;

constexpr int kManyClients = 64;
constexpr int64_t kBatchRows = 64;  // the in-process batch and --max-batch-size

// --- The child process -----------------------------------------------------------

// The running server's pid, for the signal handler: a bench interrupted
// (Ctrl-C, timeout's SIGTERM) must not leave a server behind.
volatile sig_atomic_t g_child = 0;

void OnSignal(int sig) {
  if (g_child > 0) kill(static_cast<pid_t>(g_child), SIGKILL);
  _exit(128 + sig);
}

double LoadAvg1() {
  std::ifstream in("/proc/loadavg");
  double one = -1;
  in >> one;
  return one;
}

std::string LoadAvgLine() {
  std::ifstream in("/proc/loadavg");
  std::string line;
  std::getline(in, line);
  return line;
}

// utime + stime of a process, in seconds (/proc/PID/stat fields 14 and 15).
double ProcessCpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');  // the command name may hold spaces
  if (paren == std::string::npos) return 0;
  std::istringstream fields(text.substr(paren + 2));
  std::string f;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> f; ++i) {
    if (i == 14) utime = std::strtoull(f.c_str(), nullptr, 10);
    if (i == 15) stime = std::strtoull(f.c_str(), nullptr, 10);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// CPU seconds all cores spent busy (user, nice, system, irq, softirq,
// steal) since boot: /proc/stat's first line. Minus the bench's and the
// server's own, it is what other jobs took during a window.
double MachineBusySeconds() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  unsigned long long user = 0, nice = 0, sys = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                     steal = 0;
  in >> cpu >> user >> nice >> sys >> idle >> iowait >> irq >> softirq >> steal;
  return static_cast<double>(user + nice + sys + irq + softirq + steal) /
         static_cast<double>(sysconf(_SC_CLK_TCK));
}

double SelfCpuSeconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// Runs a command to completion (stdout and stderr inherited); its exit code,
// or -1 when it could not run.
int RunCommand(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// tfn-serve as a child: started with its ports picked by the kernel (read
// from its stderr), stopped (SIGTERM, then SIGKILL) by Stop or the
// destructor, whichever path the bench leaves by.
class ServerProcess {
 public:
  static std::unique_ptr<ServerProcess> Start(const std::string& binary,
                                              const std::vector<std::string>& flags,
                                              std::string* error) {
    std::unique_ptr<ServerProcess> s(new ServerProcess());
    std::vector<std::string> argv = {binary};
    argv.insert(argv.end(), flags.begin(), flags.end());
    s->command_ = "";
    for (const std::string& a : argv) s->command_ += (s->command_.empty() ? "" : " ") + a;
    // Built before fork: between fork and exec the child may only make
    // async-signal-safe calls (this process has threads).
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      *error = "pipe2 failed";
      return nullptr;
    }
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
      close(fds[0]);
      close(fds[1]);
      *error = "fork failed";
      return nullptr;
    }
    if (pid == 0) {
      // Dies with the bench even if the bench is SIGKILLed (the forking
      // thread is main, which lives until the process ends).
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(1);
      const int null_fd = open("/dev/null", O_RDWR);
      if (null_fd >= 0) dup2(null_fd, 0);
      dup2(fds[1], 2);
      // No client socket of the bench may leak into the server.
      syscall(SYS_close_range, 3U, ~0U, 0U);
      execv(args[0], args.data());
      _exit(127);
    }
    close(fds[1]);
    s->pid_ = pid;
    g_child = pid;
    s->reader_ = std::thread([raw = s.get(), fd = fds[0]] { raw->ReadStderr(fd); });
    std::unique_lock<std::mutex> lock(s->mu_);
    const bool settled = s->cv_.wait_for(lock, std::chrono::seconds(120),
                                         [&] { return s->ready_ || s->not_ready_ || s->eof_; });
    if (!settled || !s->ready_ || s->http_port_ <= 0 || s->grpc_port_ <= 0) {
      *error = std::string(!settled ? "did not become ready in 120 s" : "did not start") + ": " +
               s->command_ + "\n" + s->log_;
      lock.unlock();
      s->Stop();
      return nullptr;
    }
    return s;
  }

  ~ServerProcess() { Stop(); }

  // SIGTERM (the server drains and exits 0), SIGKILL after 10 s.
  void Stop() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status = 0;
      bool gone = false;
      for (int i = 0; i < 1000 && !gone; ++i) {
        gone = waitpid(pid_, &status, WNOHANG) == pid_;
        if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      if (!gone) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
      }
      g_child = 0;
      pid_ = -1;
    }
    if (reader_.joinable()) reader_.join();
  }

  // For a client that is stuck: the server goes at once, the clients fail.
  void Kill() {
    if (pid_ > 0) kill(pid_, SIGKILL);
  }

  pid_t pid() const { return pid_; }
  int http_port() const { return http_port_; }
  int grpc_port() const { return grpc_port_; }
  const std::string& command() const { return command_; }
  std::string log() {
    std::lock_guard<std::mutex> lock(mu_);
    return log_;
  }

 private:
  ServerProcess() = default;

  static int PortOf(const std::string& line, const std::string& prefix) {
    if (line.rfind(prefix, 0) != 0) return -1;
    const size_t colon = line.rfind(':');
    return colon == std::string::npos ? -1 : std::atoi(line.c_str() + colon + 1);
  }

  // Reads the server's stderr until it closes (so the server never blocks
  // on a full pipe), keeping the log and the ports.
  void ReadStderr(int fd) {
    std::string pending;
    char buf[4096];
    for (;;) {
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      pending.append(buf, static_cast<size_t>(n));
      size_t nl;
      while ((nl = pending.find('\n')) != std::string::npos) {
        const std::string line = pending.substr(0, nl);
        pending.erase(0, nl + 1);
        std::lock_guard<std::mutex> lock(mu_);
        if (log_.size() < 64 * 1024) log_ += line + "\n";
        const int http = PortOf(line, "tfn-serve: HTTP listening on ");
        const int grpc = PortOf(line, "tfn-serve: gRPC listening on ");
        if (http > 0) http_port_ = http;
        if (grpc > 0) grpc_port_ = grpc;
        if (line == "tfn-serve: ready") ready_ = true;
        if (line.rfind("tfn-serve: not ready", 0) == 0) not_ready_ = true;
        cv_.notify_all();
      }
    }
    close(fd);
    std::lock_guard<std::mutex> lock(mu_);
    eof_ = true;
    cv_.notify_all();
  }

  pid_t pid_ = -1;
  std::string command_;
  std::thread reader_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string log_;  // guarded by mu_, as are the fields below
  int http_port_ = -1, grpc_port_ = -1;
  bool ready_ = false, not_ready_ = false, eof_ = false;
};

// --- The models ------------------------------------------------------------------

struct Model {
  std::string name;  // in the repository; requests get every output back
  int64_t in_cols = 0, out_cols = 0;
  std::string path;         // REPO/NAME/1/model.tfn
  std::vector<float> x;     // one request's row
  std::vector<float> want;  // the in-process output for x
  float tolerance = 0;      // |server - in process| allowed per element
};

// Deterministic inputs in [-1, 1).
std::vector<float> Floats(int64_t n, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / static_cast<float>(1 << 24) * 2.0f - 1.0f;
  }
  return v;
}

// y = x + 1 on f32[?,4], input named x (so REST and gRPC requests can name
// it), output y.
void SaveTrivial(const std::string& path) {
  tfn::FunctionOptions options;
  options.name = "trivial";
  options.arg_names = {"x"};
  auto f = tfn::function(
      [](tfn::Tensor x) {
        return std::map<std::string, tfn::Tensor>{{"y", x + 1.0f}};
      },
      options);
  tfn::save(path, {{"serving_default", f.get_concrete_function(tfn::TensorSpec(
                                           {tfn::kDynamic, 4}, tfn::DType::kFloat32, "x"))}});
}

// --- Measurements ----------------------------------------------------------------

// One request: true when the answer came and was right, else false with
// *error saying what went wrong.
using CallFn = std::function<bool(std::string* error)>;
// Makes client `index`'s CallFn and opens its connection; run on that
// client's thread before the clock starts.
using ClientFactory = std::function<CallFn(int index)>;

// Clients open their connections one after another unless --connect-burst:
// tfn-serve's REST listener has cpp-httplib's listen backlog (5), and 64
// connects at once overflow it (SYN cookies, some connections reset; see
// bench/RESULTS.md). The scenarios measure serving on open connections.
bool g_connect_burst = false;

struct Measured {
  std::vector<double> latency_us;  // sorted
  int64_t failures = 0;
  std::string first_error;
  double seconds = 0;         // the measured window
  double client_cpu_s = 0;    // this process's CPU time in the window
  double server_cpu_s = -1;   // the server's, when there is one
  double machine_busy_s = 0;  // every core's busy time in the window
  // Cores' worth of CPU that other processes used in the window: the noise.
  double other_cores() const {
    return (machine_busy_s - client_cpu_s - std::max(server_cpu_s, 0.0)) / seconds;
  }
  double p50() const { return Percentile(0.50); }
  double p99() const { return Percentile(0.99); }
  double per_second() const { return static_cast<double>(latency_us.size()) / seconds; }
  double Percentile(double p) const {
    if (latency_us.empty()) return NAN;
    // Nearest rank.
    size_t k = static_cast<size_t>(std::ceil(p * static_cast<double>(latency_us.size())));
    return latency_us[std::min(latency_us.size(), std::max<size_t>(k, 1)) - 1];
  }
};

// Runs `clients` threads that each call their CallFn back to back: `warmup`
// seconds uncounted, then `seconds` in which every answer that arrives is
// counted (latency per call with steady_clock). A failure is counted in
// either phase. `server`, when given, is killed if a client is still stuck
// 60 s after the window (its calls then fail instead of hanging the bench).
Measured Drive(int clients, const ClientFactory& make, double warmup, double seconds,
               ServerProcess* server) {
  struct PerThread {
    std::vector<double> latency_us;
    int64_t failures = 0;
    std::string first_error;
  };
  std::vector<PerThread> per(static_cast<size_t>(clients));
  std::mutex connect_mu;
  std::mutex mu;
  std::condition_variable cv;
  int prepared = 0, finished = 0;
  bool go = false;
  Clock::time_point start, end;
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&, i] {
      PerThread& me = per[static_cast<size_t>(i)];
      CallFn call;
      if (g_connect_burst) {
        call = make(i);
      } else {
        std::lock_guard<std::mutex> one_at_a_time(connect_mu);
        call = make(i);
      }
      Clock::time_point my_start, my_end;
      {
        std::unique_lock<std::mutex> lock(mu);
        ++prepared;
        cv.notify_all();
        cv.wait(lock, [&] { return go; });
        my_start = start;
        my_end = end;
      }
      me.latency_us.reserve(1 << 16);
      std::string error;
      while (call) {
        const Clock::time_point t0 = Clock::now();
        if (t0 >= my_end) break;
        const bool ok = call(&error);
        const Clock::time_point t1 = Clock::now();
        if (!ok) {
          if (me.failures++ == 0) {
            // When, against the window: failures while connecting (warm-up)
            // and under load are told apart.
            char at[64];
            std::snprintf(at, sizeof at, " (at %+.3f s from the window's start)",
                          std::chrono::duration<double>(t1 - my_start).count());
            me.first_error = error + at;
          }
          if (me.failures >= 100) break;  // the server is gone: stop hammering it
          continue;
        }
        if (t1 >= my_start && t1 < my_end) {
          me.latency_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
        }
      }
      if (!call) {
        me.failures = 1;
        me.first_error = "the client could not be made";
      }
      std::lock_guard<std::mutex> lock(mu);
      ++finished;
      cv.notify_all();
    });
  }
  Measured m;
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return prepared == clients; });
    start = Clock::now() + std::chrono::microseconds(static_cast<int64_t>(warmup * 1e6));
    end = start + std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
    go = true;
  }
  cv.notify_all();
  std::this_thread::sleep_until(start);
  double cpu0 = SelfCpuSeconds(), server0 = server ? ProcessCpuSeconds(server->pid()) : 0;
  const double busy0 = MachineBusySeconds();
  std::this_thread::sleep_until(end);
  m.machine_busy_s = MachineBusySeconds() - busy0;
  m.client_cpu_s = SelfCpuSeconds() - cpu0;
  if (server) m.server_cpu_s = ProcessCpuSeconds(server->pid()) - server0;
  {
    std::unique_lock<std::mutex> lock(mu);
    if (!cv.wait_for(lock, std::chrono::seconds(60), [&] { return finished == clients; })) {
      std::fprintf(stderr,
                   "serve_bench: a client is stuck 60 s after the window: killing the "
                   "server\n");
      if (server) server->Kill();
    }
  }
  for (std::thread& t : threads) t.join();
  m.seconds = seconds;
  for (PerThread& p : per) {
    m.latency_us.insert(m.latency_us.end(), p.latency_us.begin(), p.latency_us.end());
    m.failures += p.failures;
    if (m.first_error.empty()) m.first_error = p.first_error;
  }
  std::sort(m.latency_us.begin(), m.latency_us.end());
  return m;
}

bool Close(const float* got, const std::vector<float>& want, int64_t rows, float tolerance) {
  for (int64_t r = 0; r < rows; ++r) {
    for (size_t k = 0; k < want.size(); ++k) {
      if (!(std::fabs(got[static_cast<size_t>(r) * want.size() + k] - want[k]) <= tolerance)) {
        return false;
      }
    }
  }
  return true;
}

// In process: Method::Run (outputs allocated, as the server's run is) on a
// session of the same bundle with `threads` threads, `rows` copies of the
// model's row, from one calling thread.
Measured InProcess(const Model& model, int64_t rows, int threads, double warmup, double seconds,
                   std::string* error) {
  auto bundle = runtime::Bundle::Load(model.path);
  if (!bundle.ok()) {
    *error = model.path + ": " + bundle.status().message();
    return {};
  }
  runtime::SessionOptions so;
  so.num_threads = threads;
  auto session = std::make_shared<runtime::Session>(*bundle, so);
  auto method = session->method("serving_default");
  if (!method.ok()) {
    *error = method.status().message();
    return {};
  }
  auto x = std::make_shared<std::vector<float>>();
  for (int64_t r = 0; r < rows; ++r) x->insert(x->end(), model.x.begin(), model.x.end());
  auto inputs = std::make_shared<std::vector<runtime::Tensor>>(std::vector<runtime::Tensor>{
      runtime::View(tfn::DType::kFloat32, {rows, model.in_cols}, x->data())});
  const runtime::Method m = *method;
  return Drive(
      1,
      [&](int) -> CallFn {
        return [session, m, inputs, x, rows, &model](std::string* err) {
          auto out = m.Run(*inputs);
          if (!out.ok()) {
            *err = out.status().message();
            return false;
          }
          if ((*out)[0].byte_size() != static_cast<int64_t>(rows * model.out_cols * 4) ||
              !Close(static_cast<const float*>((*out)[0].data), model.want, rows,
                     model.tolerance)) {
            *err = "wrong output";
            return false;
          }
          return true;
        };
      },
      warmup, seconds, nullptr);
}

// The output of one in-process run on one row: the answer every request
// must get.
bool ReferenceOutput(Model* model, std::string* error) {
  auto bundle = runtime::Bundle::Load(model->path);
  if (!bundle.ok()) {
    *error = model->path + ": " + bundle.status().message();
    return false;
  }
  runtime::SessionOptions so;
  so.num_threads = 1;
  runtime::Session session(*bundle, so);
  auto out = session.Run("serving_default",
                         std::vector<runtime::Tensor>{runtime::View(
                             tfn::DType::kFloat32, {1, model->in_cols}, model->x.data())});
  if (!out.ok()) {
    *error = out.status().message();
    return false;
  }
  const float* y = static_cast<const float*>((*out)[0].data);
  model->want.assign(y, y + model->out_cols);
  return true;
}

// --- Clients ---------------------------------------------------------------------

// gRPC: a channel per client with its own subchannel pool, so each client
// has its own HTTP/2 connection (channels to one target otherwise share
// one), and a request built once (raw_input_contents).
ClientFactory GrpcClients(int port, const Model& model) {
  return [port, &model](int) -> CallFn {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    auto channel = grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port),
                                             grpc::InsecureChannelCredentials(), args);
    if (!g_connect_burst) {
      channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(10));
    }
    std::shared_ptr<inference::GRPCInferenceService::Stub> stub =
        inference::GRPCInferenceService::NewStub(channel);
    auto request = std::make_shared<inference::ModelInferRequest>();
    request->set_model_name(model.name);
    auto* in = request->add_inputs();
    in->set_name("x");
    in->set_datatype("FP32");
    in->add_shape(1);
    in->add_shape(model.in_cols);
    request->add_raw_input_contents()->assign(reinterpret_cast<const char*>(model.x.data()),
                                              model.x.size() * sizeof(float));
    const size_t want_bytes = model.want.size() * sizeof(float);
    return [stub, request, want_bytes, &model](std::string* err) {
      grpc::ClientContext context;
      inference::ModelInferResponse response;
      const grpc::Status status = stub->ModelInfer(&context, *request, &response);
      if (!status.ok()) {
        *err = "gRPC " + std::to_string(status.error_code()) + ": " + status.error_message();
        return false;
      }
      if (response.raw_output_contents_size() != 1 ||
          response.raw_output_contents(0).size() != want_bytes) {
        *err = "gRPC: the answer has no raw output of " + std::to_string(want_bytes) + " bytes";
        return false;
      }
      float got[16];  // out_cols <= 16 (4 and 10)
      std::memcpy(got, response.raw_output_contents(0).data(), want_bytes);
      if (!Close(got, model.want, 1, model.tolerance)) {
        *err = "gRPC: wrong output values";
        return false;
      }
      return true;
    };
  };
}

// REST with the binary tensor extension, as Triton's HTTP client sends it:
// JSON header, then the input's bytes; outputs asked for in binary. One
// keep-alive connection per client. "Accept-Encoding: identity" pins down
// that answers come uncompressed: tfn-serve's cpp-httplib gzips (or
// brotli-compresses) JSON for a client that accepts it, as Python's
// requests does by default; Triton's (libcurl) and cpp-httplib 0.11's
// clients ask for no compression, so the header changes nothing for them.
ClientFactory RestBinaryClients(int port, const Model& model) {
  return [port, &model](int) -> CallFn {
    auto client = std::make_shared<httplib::Client>("127.0.0.1", port);
    client->set_keep_alive(true);
    client->set_tcp_nodelay(true);
    if (!g_connect_burst) client->Get("/v2/health/ready");  // connects
    const size_t in_bytes = model.x.size() * sizeof(float);
    const std::string header =
        "{\"inputs\":[{\"name\":\"x\",\"shape\":[1," + std::to_string(model.in_cols) +
        "],\"datatype\":\"FP32\",\"parameters\":{\"binary_data_size\":" + std::to_string(in_bytes) +
        "}}],\"parameters\":{\"binary_data_output\":true}}";
    auto body = std::make_shared<std::string>(header);
    body->append(reinterpret_cast<const char*>(model.x.data()), in_bytes);
    auto headers = std::make_shared<httplib::Headers>(
        httplib::Headers{{"Inference-Header-Content-Length", std::to_string(header.size())},
                         {"Accept-Encoding", "identity"}});
    auto path = std::make_shared<std::string>("/v2/models/" + model.name + "/infer");
    const size_t want_bytes = model.want.size() * sizeof(float);
    return [client, body, headers, path, want_bytes, &model](std::string* err) {
      httplib::Result res = client->Post(*path, *headers, *body, "application/octet-stream");
      if (!res) {
        *err = "REST: " + httplib::to_string(res.error());
        return false;
      }
      if (res->status != 200) {
        *err = "REST " + std::to_string(res->status) + ": " + res->body.substr(0, 300);
        return false;
      }
      const std::string h = res->get_header_value("Inference-Header-Content-Length");
      const size_t json = static_cast<size_t>(std::strtoull(h.c_str(), nullptr, 10));
      if (json == 0 || res->body.size() != json + want_bytes ||
          res->body.find("\"binary_data_size\"") >= json) {
        *err = "REST: the answer is not a JSON header and " + std::to_string(want_bytes) +
               " bytes of binary output: " + res->body.substr(0, 200);
        return false;
      }
      float got[16];
      std::memcpy(got, res->body.data() + json, want_bytes);
      if (!Close(got, model.want, 1, model.tolerance)) {
        *err = "REST: wrong output values";
        return false;
      }
      return true;
    };
  };
}

// REST with the data in JSON (flat "data"), what curl users send.
ClientFactory RestJsonClients(int port, const Model& model) {
  return [port, &model](int) -> CallFn {
    auto client = std::make_shared<httplib::Client>("127.0.0.1", port);
    client->set_keep_alive(true);
    client->set_tcp_nodelay(true);
    if (!g_connect_burst) client->Get("/v2/health/ready");  // connects
    std::string data;
    char num[32];
    for (float v : model.x) {
      std::snprintf(num, sizeof num, "%.9g", static_cast<double>(v));
      data += (data.empty() ? "" : ",") + std::string(num);
    }
    auto body = std::make_shared<std::string>("{\"inputs\":[{\"name\":\"x\",\"shape\":[1," +
                                              std::to_string(model.in_cols) +
                                              "],\"datatype\":\"FP32\",\"data\":[" + data + "]}]}");
    auto headers =
        std::make_shared<httplib::Headers>(httplib::Headers{{"Accept-Encoding", "identity"}});
    auto path = std::make_shared<std::string>("/v2/models/" + model.name + "/infer");
    return [client, body, headers, path, &model](std::string* err) {
      httplib::Result res = client->Post(*path, *headers, *body, "application/json");
      if (!res) {
        *err = "REST: " + httplib::to_string(res.error());
        return false;
      }
      if (res->status != 200) {
        *err = "REST " + std::to_string(res->status) + ": " + res->body.substr(0, 300);
        return false;
      }
      // {"model_name":..,"outputs":[{"name":"y",..,"data":[v,...]}]}
      const size_t at = res->body.find("\"data\":[");
      if (at == std::string::npos) {
        *err = "REST: no \"data\" in the answer: " + res->body.substr(0, 200);
        return false;
      }
      const char* p = res->body.c_str() + at + 8;
      std::vector<float> got;
      while (*p && *p != ']') {
        char* e = nullptr;
        got.push_back(std::strtof(p, &e));
        if (e == p) break;
        p = *e == ',' ? e + 1 : e;
      }
      if (got.size() != model.want.size() || !Close(got.data(), model.want, 1, model.tolerance)) {
        *err = "REST: wrong output values: " + res->body.substr(0, 200);
        return false;
      }
      return true;
    };
  };
}

// The floor under any server on this machine: 64 bytes to an echo thread
// and back over loopback TCP (TCP_NODELAY, blocking calls), the least a
// request over a socket costs: two wakeups, four system calls.
class EchoServer {
 public:
  EchoServer() {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (listen_fd_ < 0 || bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        listen(listen_fd_, 128) != 0 ||
        getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      return;
    }
    port_ = ntohs(addr.sin_port);
    accept_ = std::thread([this] {
      for (;;) {
        const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) return;  // shut down
        echoes_.emplace_back([fd] {
          char buf[kBytes];
          for (;;) {
            size_t got = 0;
            while (got < kBytes) {
              const ssize_t n = read(fd, buf + got, kBytes - got);
              if (n <= 0) {
                close(fd);
                return;
              }
              got += static_cast<size_t>(n);
            }
            if (write(fd, buf, kBytes) != static_cast<ssize_t>(kBytes)) {
              close(fd);
              return;
            }
          }
        });
      }
    });
  }
  // Call after every client has closed its connection.
  ~EchoServer() {
    if (listen_fd_ >= 0) shutdown(listen_fd_, SHUT_RDWR);
    if (accept_.joinable()) accept_.join();
    for (std::thread& t : echoes_) t.join();
    if (listen_fd_ >= 0) close(listen_fd_);
  }
  int port() const { return port_; }
  static constexpr size_t kBytes = 64;

 private:
  int listen_fd_ = -1;
  int port_ = -1;
  std::thread accept_;
  std::vector<std::thread> echoes_;  // touched by the accept thread only, until it is joined
};

ClientFactory EchoClients(int port) {
  return [port](int) -> CallFn {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    const int one = 1;
    if (fd < 0 || setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0 ||
        connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      if (fd >= 0) close(fd);
      return nullptr;
    }
    // Closes the connection when the last copy of the CallFn goes.
    auto socket = std::shared_ptr<int>(new int(fd), [](int* p) {
      close(*p);
      delete p;
    });
    return [socket](std::string* err) {
      char buf[EchoServer::kBytes] = {1};
      if (write(*socket, buf, sizeof buf) != static_cast<ssize_t>(sizeof buf)) {
        *err = "echo: write failed";
        return false;
      }
      size_t got = 0;
      while (got < sizeof buf) {
        const ssize_t n = read(*socket, buf + got, sizeof buf - got);
        if (n <= 0) {
          *err = "echo: read failed";
          return false;
        }
        got += static_cast<size_t>(n);
      }
      return buf[0] == 1;
    };
  };
}

// The sum of a Prometheus metric's samples for `model` (counters, and a
// histogram's _sum and _count).
double MetricSum(const std::string& text, const std::string& name, const std::string& model) {
  double total = 0;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(name + "{", 0) != 0) continue;
    if (line.find("model=\"" + model + "\"") == std::string::npos) continue;
    total += std::strtod(line.c_str() + line.rfind(' ') + 1, nullptr);
  }
  return total;
}

std::string Metrics(int http_port) {
  httplib::Client client("127.0.0.1", http_port);
  httplib::Result res = client.Get("/metrics");
  return res && res->status == 200 ? res->body : std::string();
}

// --- The table -------------------------------------------------------------------

struct Row {
  std::string scenario;
  int clients = 1;
  std::string server;  // the flags that differ between servers
  int64_t rows_per_request = 1;
  Measured m;
  const Row* baseline = nullptr;
  double batch_rows = NAN;  // mean rows per executed batch (server metrics)
  double queue_us = NAN;    // mean time a request waited for its batch
  double infer_us = NAN;    // mean time in the server's Infer (queue and run)
};

std::string Fixed(double v, int digits) {
  if (std::isnan(v)) return "—";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string Count(double v) {
  if (std::isnan(v)) return "—";
  char buf[64];
  if (v >= 100000) {
    std::snprintf(buf, sizeof buf, "%.0fk", v / 1000);
  } else if (v >= 10000) {
    std::snprintf(buf, sizeof buf, "%.1fk", v / 1000);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  }
  return buf;
}

void PrintTable(const std::vector<std::unique_ptr<Row>>& rows) {
  std::printf(
      "\n| scenario | clients | server | answers | p50 µs | p99 µs | req/s | rows/s | in process "
      "| its p50 µs | its rows/s | added p50 µs | rows/s ÷ in process | server Infer µs | server "
      "CPU µs/req | client CPU µs/req | rows/batch | queue µs | other jobs, cores |\n"
      "|---|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:"
      "|\n");
  for (const auto& row : rows) {
    const Row& r = *row;
    const Measured& m = r.m;
    const double rate = m.per_second();
    const double n = static_cast<double>(m.latency_us.size());
    const Row* b = r.baseline;
    std::string base = "—", bp50 = "—", brows = "—", added = "—", ratio = "—";
    if (b) {
      base = b->scenario;
      bp50 = Fixed(b->m.p50(), 1);
      brows = Count(b->m.per_second() * static_cast<double>(b->rows_per_request));
      // Latency against latency only where one client makes the two alike.
      if (r.clients == 1) added = Fixed(m.p50() - b->m.p50(), 1);
      ratio = Fixed(rate * static_cast<double>(r.rows_per_request) /
                        (b->m.per_second() * static_cast<double>(b->rows_per_request)),
                    2);
    }
    const std::string answers =
        std::to_string(m.latency_us.size()) +
        (m.failures ? " (" + std::to_string(m.failures) + " FAILED)" : std::string());
    std::printf(
        "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
        "| %s |\n",
        r.scenario.c_str(), r.clients, r.server.c_str(), answers.c_str(), Fixed(m.p50(), 1).c_str(),
        Fixed(m.p99(), 1).c_str(), Count(rate).c_str(),
        Count(rate * static_cast<double>(r.rows_per_request)).c_str(), base.c_str(), bp50.c_str(),
        brows.c_str(), added.c_str(), ratio.c_str(), Fixed(r.infer_us, 1).c_str(),
        m.server_cpu_s >= 0 && n > 0 ? Fixed(m.server_cpu_s * 1e6 / n, 1).c_str() : "—",
        n > 0 ? Fixed(m.client_cpu_s * 1e6 / n, 1).c_str() : "—", Fixed(r.batch_rows, 1).c_str(),
        Fixed(r.queue_us, 0).c_str(), Fixed(m.other_cores(), 2).c_str());
  }
}

// --- Flags -----------------------------------------------------------------------

struct Flags {
  std::string serve, exporter, workdir, filter;
  double seconds = 3, warmup = 1;
  int threads = 1;
  std::vector<int64_t> delays = {200, 1000, 2000};
};

[[noreturn]] void Usage(const std::string& why) {
  std::fprintf(
      stderr,
      "serve_bench: %s\nusage: serve_bench --serve PATH_TO_tfn-serve --export "
      "PATH_TO_tfn-export --workdir DIR [--seconds S (3)] [--warmup S (1)] [--threads T "
      "(1)] [--delays US,US,... (200,1000,2000)] [--filter SUBSTRING] [--connect-burst 0|1 (0)]\n",
      why.c_str());
  std::exit(2);
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) Usage(a + " needs a value");
    const std::string v = argv[++i];
    if (a == "--serve") {
      f.serve = v;
    } else if (a == "--export") {
      f.exporter = v;
    } else if (a == "--workdir") {
      f.workdir = v;
    } else if (a == "--filter") {
      f.filter = v;
    } else if (a == "--seconds") {
      f.seconds = std::atof(v.c_str());
    } else if (a == "--warmup") {
      f.warmup = std::atof(v.c_str());
    } else if (a == "--threads") {
      f.threads = std::atoi(v.c_str());
    } else if (a == "--connect-burst") {
      g_connect_burst = v == "1";
    } else if (a == "--delays") {
      f.delays.clear();
      std::istringstream in(v);
      std::string d;
      while (std::getline(in, d, ',')) f.delays.push_back(std::atoll(d.c_str()));
    } else {
      Usage("unknown flag " + a);
    }
  }
  if (f.serve.empty() || f.exporter.empty() || f.workdir.empty()) {
    Usage("--serve, --export and --workdir are required");
  }
  if (f.seconds <= 0 || f.warmup < 0 || f.threads < 1)
    Usage("bad --seconds, --warmup or --threads");
  return f;
}

// --- Main ------------------------------------------------------------------------

int Main(const Flags& flags) {
  std::printf("serve_bench: load average at start: %s\n", LoadAvgLine().c_str());
  std::fflush(stdout);
  bool failed = false;

  // The repository: REPO/NAME/1/model.tfn.
  namespace fs = std::filesystem;
  const std::string repo = flags.workdir + "/repo";
  std::error_code ec;
  fs::remove_all(repo, ec);
  fs::create_directories(repo + "/mlp/1");
  fs::create_directories(repo + "/trivial/1");
  Model trivial{"trivial", 4, 4, repo + "/trivial/1/model.tfn", {1, 2, 3, 4}, {}, 0.0f};
  // Batched rows run through other GEMM tilings than one row alone: allow
  // the rounding difference (the outputs are probabilities in [0, 1]).
  Model mlp{"mlp", 784, 10, repo + "/mlp/1/model.tfn", Floats(784, 12345), {}, 1e-4f};
  try {
    SaveTrivial(trivial.path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "serve_bench: saving the trivial model: %s\n", e.what());
    return 1;
  }
  if (RunCommand({flags.exporter, "mlp", "-o", mlp.path}) != 0) {
    std::fprintf(stderr, "serve_bench: %s mlp -o %s failed\n", flags.exporter.c_str(),
                 mlp.path.c_str());
    return 1;
  }
  std::string error;
  for (Model* m : {&trivial, &mlp}) {
    if (!ReferenceOutput(m, &error)) {
      std::fprintf(stderr, "serve_bench: %s: %s\n", m->name.c_str(), error.c_str());
      return 1;
    }
  }

  auto wanted = [&](const std::string& name) {
    return flags.filter.empty() || name.find(flags.filter) != std::string::npos;
  };
  auto progress = [](const Row& r) {
    std::fprintf(
        stderr,
        "serve_bench: %-28s %2d clients: %8zu answers, p50 %8.1f us, p99 %8.1f us, "
        "%9.0f req/s%s (other jobs %.2f cores, load %.2f)\n",
        r.scenario.c_str(), r.clients, r.m.latency_us.size(), r.m.p50(), r.m.p99(),
        r.m.per_second(),
        r.m.failures
            ? (", " + std::to_string(r.m.failures) + " failures: " + r.m.first_error).c_str()
            : "",
        r.m.other_cores(), LoadAvg1());
  };

  // In process first: the baselines.
  std::vector<std::unique_ptr<Row>> rows;
  auto in_process = [&](const std::string& name, const Model& model, int64_t batch,
                        int threads) -> const Row* {
    auto r = std::make_unique<Row>();
    r->scenario = name;
    r->server = "in process, " + std::to_string(threads) + " thread" + (threads > 1 ? "s" : "");
    r->rows_per_request = batch;
    r->m = InProcess(model, batch, threads, flags.warmup, flags.seconds, &error);
    if (!error.empty() || r->m.failures) {
      std::fprintf(stderr, "serve_bench: %s: %s%s\n", name.c_str(), error.c_str(),
                   r->m.first_error.c_str());
      failed = true;
      error.clear();
    }
    progress(*r);
    rows.push_back(std::move(r));
    return rows.back().get();
  };
  const Row* base_trivial = in_process("trivial in process b1", trivial, 1, 1);
  const Row* base_mlp1 = in_process("mlp in process b1", mlp, 1, 1);
  const Row* base_mlp64 = in_process("mlp in process b64", mlp, kBatchRows, flags.threads);
  {  // the floor, run with every filter: it says what this machine's loopback costs today
    EchoServer echo;
    auto r = std::make_unique<Row>();
    r->scenario = "tcp echo 64 B";
    r->server = "loopback TCP to an echo thread";
    if (echo.port() > 0)
      r->m = Drive(1, EchoClients(echo.port()), flags.warmup, flags.seconds, nullptr);
    if (echo.port() <= 0 || r->m.failures || r->m.latency_us.empty()) {
      std::fprintf(stderr, "serve_bench: the echo floor failed: %s\n", r->m.first_error.c_str());
      failed = true;
    }
    progress(*r);
    rows.push_back(std::move(r));
  }

  // One server per configuration; its scenarios run against it.
  struct Scenario {
    std::string name;  // "trivial grpc" ...
    const Model* model;
    ClientFactory (*clients)(int port, const Model& model);
    bool grpc;
    int clients_count;
    const Row* baseline;
  };
  struct Config {
    std::string label;
    std::vector<std::string> flags;
    std::vector<Scenario> scenarios;
  };
  const std::string t = std::to_string(flags.threads);
  std::vector<Config> configs;
  {
    Config latency{"threads 1, no batching", {"--threads", "1"}, {}};
    for (int c : {1, kManyClients}) {
      latency.scenarios.push_back({"trivial grpc", &trivial, GrpcClients, true, c, base_trivial});
      latency.scenarios.push_back(
          {"trivial rest-binary", &trivial, RestBinaryClients, false, c, base_trivial});
      latency.scenarios.push_back(
          {"trivial rest-json", &trivial, RestJsonClients, false, c, base_trivial});
    }
    latency.scenarios.push_back({"mlp grpc", &mlp, GrpcClients, true, 1, base_mlp1});
    latency.scenarios.push_back({"mlp rest-binary", &mlp, RestBinaryClients, false, 1, base_mlp1});
    configs.push_back(latency);
    // 64 clients on the mlp without batching: what batching is measured against.
    Config unbatched{"threads " + t + ", no batching", {"--threads", t}, {}};
    unbatched.scenarios.push_back({"mlp grpc", &mlp, GrpcClients, true, kManyClients, base_mlp64});
    unbatched.scenarios.push_back(
        {"mlp rest-binary", &mlp, RestBinaryClients, false, kManyClients, base_mlp64});
    configs.push_back(unbatched);
    for (int64_t d : flags.delays) {
      Config batched{"threads " + t + ", batch ≤" + std::to_string(kBatchRows) + ", delay " +
                         std::to_string(d) + " µs",
                     {"--threads", t, "--max-batch-size", std::to_string(kBatchRows),
                      "--max-queue-delay-us", std::to_string(d)},
                     {}};
      batched.scenarios.push_back({"mlp grpc", &mlp, GrpcClients, true, kManyClients, base_mlp64});
      batched.scenarios.push_back(
          {"mlp rest-binary", &mlp, RestBinaryClients, false, kManyClients, base_mlp64});
      configs.push_back(batched);
    }
  }

  for (const Config& config : configs) {
    std::vector<const Scenario*> todo;
    for (const Scenario& s : config.scenarios) {
      if (wanted(s.name + " " + std::to_string(s.clients_count) + " " + config.label)) {
        todo.push_back(&s);
      }
    }
    if (todo.empty()) continue;
    std::vector<std::string> server_flags = {
        repo, "--host", "127.0.0.1", "--http-port", "0", "--grpc-port", "0", "--poll-seconds", "0"};
    server_flags.insert(server_flags.end(), config.flags.begin(), config.flags.end());
    std::unique_ptr<ServerProcess> server = ServerProcess::Start(flags.serve, server_flags, &error);
    if (!server) {
      std::fprintf(stderr, "serve_bench: tfn-serve %s\n", error.c_str());
      error.clear();
      failed = true;
      continue;
    }
    std::fprintf(stderr, "serve_bench: %s (HTTP %d, gRPC %d)\n", server->command().c_str(),
                 server->http_port(), server->grpc_port());
    for (const Scenario* s : todo) {
      auto r = std::make_unique<Row>();
      r->scenario = s->name;
      r->clients = s->clients_count;
      r->server = config.label;
      r->baseline = s->baseline;
      const std::string before = Metrics(server->http_port());
      r->m = Drive(s->clients_count,
                   s->clients(s->grpc ? server->grpc_port() : server->http_port(), *s->model),
                   flags.warmup, flags.seconds, server.get());
      const std::string after = Metrics(server->http_port());
      // Mean rows per executed batch and queue time over warm-up and window.
      const std::string& name = s->model->name;
      const double batches = MetricSum(after, "tfn_batch_size_count", name) -
                             MetricSum(before, "tfn_batch_size_count", name);
      const double batch_rows = MetricSum(after, "tfn_batch_size_sum", name) -
                                MetricSum(before, "tfn_batch_size_sum", name);
      const double queued = MetricSum(after, "tfn_queue_duration_seconds_count", name) -
                            MetricSum(before, "tfn_queue_duration_seconds_count", name);
      const double queue_s = MetricSum(after, "tfn_queue_duration_seconds_sum", name) -
                             MetricSum(before, "tfn_queue_duration_seconds_sum", name);
      const double requests = MetricSum(after, "tfn_request_duration_seconds_count", name) -
                              MetricSum(before, "tfn_request_duration_seconds_count", name);
      const double request_s = MetricSum(after, "tfn_request_duration_seconds_sum", name) -
                               MetricSum(before, "tfn_request_duration_seconds_sum", name);
      if (requests > 0) r->infer_us = request_s / requests * 1e6;
      if (batches > 0) r->batch_rows = batch_rows / batches;
      const bool batched = std::find(config.flags.begin(), config.flags.end(),
                                     "--max-batch-size") != config.flags.end();
      if (queued > 0 && batched) r->queue_us = queue_s / queued * 1e6;
      if (r->m.failures) failed = true;
      progress(*r);
      rows.push_back(std::move(r));
    }
    server->Stop();
    if (!server->log().empty() && failed) std::fprintf(stderr, "%s", server->log().c_str());
  }

  PrintTable(rows);

  // The targets.
  auto find = [&](const std::string& scenario, int clients) -> const Row* {
    for (const auto& r : rows) {
      if (r->scenario == scenario && r->clients == clients && r->baseline) return r.get();
    }
    return nullptr;
  };
  std::printf("\nTargets (the issue's):\n");
  auto added_target = [&](const char* scenario, double limit) {
    const Row* r = find(scenario, 1);
    if (!r) return;
    const double added = r->m.p50() - r->baseline->m.p50();
    std::printf("  %s, 1 client: adds %.1f µs at p50 over in process (target ≤ %.0f): %s\n",
                scenario, added, limit, added <= limit ? "met" : "NOT MET");
  };
  added_target("trivial grpc", 50);
  added_target("trivial rest-binary", 80);
  added_target("trivial rest-json", 80);
  for (const char* proto : {"mlp grpc", "mlp rest-binary"}) {
    double best = -1;
    std::string best_label;
    for (const auto& r : rows) {
      if (r->scenario != proto || r->clients != kManyClients ||
          r->server.find("batch ≤") == std::string::npos) {
        continue;
      }
      const double ratio = r->m.per_second() / (r->baseline->m.per_second() * kBatchRows);
      if (ratio > best) {
        best = ratio;
        best_label = r->server;
      }
    }
    if (best >= 0) {
      std::printf(
          "  %s, %d clients, batching: best %.2f of in-process batch-%lld rows/s on %d "
          "thread%s (%s; target ≥ 0.80): %s\n",
          proto, kManyClients, best, static_cast<long long>(kBatchRows), flags.threads,
          flags.threads > 1 ? "s" : "", best_label.c_str(), best >= 0.8 ? "met" : "NOT MET");
    }
  }
  std::printf("\nserve_bench: load average at end: %s\n", LoadAvgLine().c_str());
  if (failed) std::printf("serve_bench: some requests FAILED (see stderr)\n");
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Flags flags = ParseFlags(argc, argv);
  // Debian 12 builds Abseil without NDEBUG, so every absl::Mutex that gRPC
  // takes also updates Abseil's deadlock-detection graph (GraphCycles in
  // the profiles). The clients stand in for Triton's, whose gRPC is built
  // with it off: turn it off here. tfn-serve keeps Debian's default (see
  // bench/RESULTS.md, "tfn-serve", for what that costs the server).
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) signal(sig, OnSignal);
  signal(SIGPIPE, SIG_IGN);  // a server that dies mid-request is a failed request, not our end
  try {
    return Main(flags);
  } catch (const std::exception& e) {
    // Every ServerProcess was destroyed (and its server stopped) on the way.
    std::fprintf(stderr, "serve_bench: %s\n", e.what());
    return 1;
  }
}
