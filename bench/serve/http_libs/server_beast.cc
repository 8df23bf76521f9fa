// The comparison's server on Boost.Beast: asynchronous sessions on one
// io_context run by THREADS threads (a session's reads and writes are a
// chain, so they never run at once and need no strand).
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <memory>
#include <thread>
#include <vector>

#include "common.h"

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

class Session : public std::enable_shared_from_this<Session> {
 public:
  explicit Session(tcp::socket socket) : stream_(std::move(socket)) {}

  void Read() {
    req_ = {};
    http::async_read(stream_, buffer_, req_,
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (ec) return self->Close();
                       self->Answer();
                     });
  }

 private:
  void Answer() {
    res_ = {};
    res_.version(req_.version());
    res_.keep_alive(req_.keep_alive());
    res_.set(http::field::content_type, "application/json");
    if (req_.method() == http::verb::get && req_.target() == kReadyPath) {
      res_.result(http::status::ok);
      res_.body() = kReadyBody;
    } else if (req_.method() == http::verb::post && req_.target() == kInferPath) {
      char body[256];
      const int n = InferAnswer(req_.body().size(), body, sizeof(body));
      res_.result(http::status::ok);
      res_.body().assign(body, static_cast<size_t>(n));
    } else {
      res_.result(http::status::not_found);
      res_.body() = kNotFoundBody;
    }
    res_.prepare_payload();
    http::async_write(stream_, res_, [self = shared_from_this()](beast::error_code ec, size_t) {
      if (ec || !self->res_.keep_alive()) return self->Close();
      self->Read();
    });
  }

  void Close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> req_;
  http::response<http::string_body> res_;
};

void Accept(tcp::acceptor& acceptor) {
  acceptor.async_accept([&acceptor](beast::error_code ec, tcp::socket socket) {
    if (!ec) {
      socket.set_option(tcp::no_delay(true));
      std::make_shared<Session>(std::move(socket))->Read();
    }
    Accept(acceptor);
  });
}

int main(int argc, char** argv) {
  int port = 0, threads = 0;
  ParseArgs(argc, argv, &port, &threads);
  net::io_context ioc(threads);
  tcp::acceptor acceptor(ioc,
                         {net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)});
  Accept(acceptor);
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back([&ioc] { ioc.run(); });
  ioc.run();
  for (std::thread& t : pool) t.join();
  return 0;
}
