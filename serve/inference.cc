// How tfn's status codes map onto HTTP statuses and gRPC codes (inference.h).
#include "serve/inference.h"

namespace tfn::serve {

int HttpStatusOf(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return 200;
    case StatusCode::kInvalidArgument:
    case StatusCode::kOutOfRange:
      return 400;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kResourceExhausted:
    case StatusCode::kFailedPrecondition:
      return 503;
    case StatusCode::kUnimplemented:
      return 501;
    default:
      return 500;
  }
}

int GrpcCodeOf(const Status& status) {
  // grpc::StatusCode: OK 0, INVALID_ARGUMENT 3, NOT_FOUND 5, INTERNAL 13,
  // UNAVAILABLE 14, UNIMPLEMENTED 12.
  switch (status.code()) {
    case StatusCode::kOk:
      return 0;
    case StatusCode::kInvalidArgument:
    case StatusCode::kOutOfRange:
      return 3;
    case StatusCode::kNotFound:
      return 5;
    case StatusCode::kResourceExhausted:
    case StatusCode::kFailedPrecondition:
      return 14;
    case StatusCode::kUnimplemented:
      return 12;
    default:
      return 13;
  }
}

}  // namespace tfn::serve
