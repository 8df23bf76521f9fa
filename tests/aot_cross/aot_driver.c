/* Runs one signature of an AOT object through its TfnAotSignature table
 * (schema/aot_abi.h) on deterministic inputs, for any object: the cross test
 * builds it for the host and for AArch64 (run under qemu) and compares both
 * with the runtime's outputs for the same inputs.
 *
 *   aot_driver SIGNATURE --batch N [--write DIR] [--compare DIR] [--tolerance T]
 *
 * Every dynamic dim is N. Inputs come from an integer generator, so both
 * builds see the same bytes: floats in [-1, 1), integers in [0, 10), bools
 * alternate. --write writes DIR/INPUT.npy for each input (for tfn-run);
 * --compare reads DIR/OUTPUT.npy for each output and checks
 * |got - want| <= T * (1 + |want|) (default 1e-4). Plain C: no tfn library.
 * Build with -DTFN_TABLE=NAME_signatures -DTFN_COUNT=NAME_num_signatures. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_abi.h"

extern const TfnAotSignature* const TFN_TABLE[];
extern const int32_t TFN_COUNT;

enum { kBool = 1, kInt32 = 2, kInt64 = 3, kFloat32 = 4, kFloat64 = 5 };

static int elem_size(int dtype) {
  switch (dtype) {
    case kBool: return 1;
    case kInt32: case kFloat32: return 4;
    case kInt64: case kFloat64: return 8;
    default: return 0;
  }
}

static const char* npy_descr(int dtype) {
  switch (dtype) {
    case kBool: return "|b1";
    case kInt32: return "<i4";
    case kInt64: return "<i8";
    case kFloat32: return "<f4";
    case kFloat64: return "<f8";
    default: return "?";
  }
}

static int64_t count(const int64_t* dims, int rank) {
  int64_t n = 1;
  for (int d = 0; d < rank; ++d) n *= dims[d];
  return n;
}

static int write_npy(const char* path, int dtype, const int64_t* dims, int rank, const void* data) {
  char shape[256] = "";
  for (int d = 0; d < rank; ++d) {
    size_t used = strlen(shape);
    snprintf(shape + used, sizeof shape - used, "%lld,%s", (long long)dims[d], d + 1 < rank ? " " : "");
  }
  char header[512];
  int n = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                   npy_descr(dtype), shape);
  int pad = (64 - (10 + n + 1) % 64) % 64;
  unsigned len = (unsigned)(n + pad + 1);
  FILE* f = fopen(path, "wb");
  if (!f) return -1;
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(len & 0xff),
                           (unsigned char)(len >> 8)};
  fwrite(pre, 1, 10, f);
  fwrite(header, 1, (size_t)n, f);
  for (int i = 0; i < pad; ++i) fputc(' ', f);
  fputc('\n', f);
  fwrite(data, (size_t)elem_size(dtype), (size_t)count(dims, rank), f);
  return fclose(f);
}

/* Reads the data of a .npy written by tfn-run; checks only the byte count. */
static void* read_npy(const char* path, int64_t bytes) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char pre[12];
  void* data = NULL;
  if (fread(pre, 1, 10, f) == 10 && memcmp(pre, "\x93NUMPY", 6) == 0) {
    long header = pre[6] == 1 ? 10 + (pre[8] | (pre[9] << 8)) : -1;
    if (pre[6] >= 2 && fread(pre + 10, 1, 2, f) == 2) {
      header = 12 + (long)(pre[8] | (pre[9] << 8) | (pre[10] << 16) | ((unsigned long)pre[11] << 24));
    }
    data = malloc((size_t)bytes + 1);
    if (header < 0 || fseek(f, header, SEEK_SET) != 0 || (int64_t)fread(data, 1, (size_t)bytes + 1, f) != bytes) {
      free(data);
      data = NULL;
    }
  }
  fclose(f);
  return data;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t next_u32(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33);
}

static void fill(int dtype, void* data, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t r = next_u32();
    double unit = (double)(r & 0xffffff) / (double)0x1000000 * 2.0 - 1.0; /* [-1, 1), exact in f32 */
    switch (dtype) {
      case kBool: ((unsigned char*)data)[i] = (unsigned char)(i & 1); break;
      case kInt32: ((int32_t*)data)[i] = (int32_t)(r % 10); break;
      case kInt64: ((int64_t*)data)[i] = (int64_t)(r % 10); break;
      case kFloat32: ((float*)data)[i] = (float)unit; break;
      case kFloat64: ((double*)data)[i] = unit; break;
    }
  }
}

static double element(int dtype, const void* data, int64_t i) {
  switch (dtype) {
    case kBool: return ((const unsigned char*)data)[i];
    case kInt32: return ((const int32_t*)data)[i];
    case kInt64: return (double)((const int64_t*)data)[i];
    case kFloat32: return ((const float*)data)[i];
    default: return ((const double*)data)[i];
  }
}

int main(int argc, char** argv) {
  const char *signature = argc > 1 ? argv[1] : NULL, *write_dir = NULL, *compare_dir = NULL;
  int64_t batch = 1;
  double tolerance = 1e-4;
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "--batch") && i + 1 < argc) batch = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--write") && i + 1 < argc) write_dir = argv[++i];
    else if (!strcmp(argv[i], "--compare") && i + 1 < argc) compare_dir = argv[++i];
    else if (!strcmp(argv[i], "--tolerance") && i + 1 < argc) tolerance = atof(argv[++i]);
    else signature = NULL;
  }
  const TfnAotSignature* sig = NULL;
  for (int i = 0; signature && i < TFN_COUNT; ++i) {
    if (!strcmp(TFN_TABLE[i]->name, signature)) sig = TFN_TABLE[i];
  }
  if (!sig) {
    fprintf(stderr, "usage: aot_driver SIGNATURE --batch N [--write DIR] [--compare DIR] [--tolerance T]\n");
    return 2;
  }
  int64_t dims[64];
  for (int d = 0; d < sig->num_dims && d < 64; ++d) dims[d] = batch;
  const void* inputs[64];
  void* outputs[64];
  char path[4096];
  for (int i = 0; i < sig->num_inputs; ++i) {
    const TfnAotTensorDesc* t = &sig->inputs[i];
    int64_t shape[TFN_AOT_MAX_RANK];
    for (int d = 0; d < t->rank; ++d) shape[d] = t->dim_index[d] >= 0 ? batch : t->size[d];
    void* data = malloc((size_t)(count(shape, t->rank) * elem_size(t->dtype)) + 1);
    fill(t->dtype, data, count(shape, t->rank));
    inputs[i] = data;
    if (write_dir) {
      snprintf(path, sizeof path, "%s/%s.npy", write_dir, t->name);
      if (write_npy(path, t->dtype, shape, t->rank, data) != 0) {
        fprintf(stderr, "aot_driver: cannot write %s\n", path);
        return 1;
      }
    }
  }
  int64_t out_shapes[64][TFN_AOT_MAX_RANK];
  for (int o = 0; o < sig->num_outputs; ++o) {
    sig->output_shape(dims, o, out_shapes[o]);
    outputs[o] = malloc((size_t)(count(out_shapes[o], sig->outputs[o].rank) * elem_size(sig->outputs[o].dtype)) + 1);
  }
  int64_t scratch_bytes = sig->scratch_bytes(dims);
  void* scratch = aligned_alloc(64, (size_t)((scratch_bytes + 64) / 64 * 64));
  int32_t rc = sig->run(inputs, dims, outputs, scratch);
  if (rc != TFN_AOT_OK) {
    fprintf(stderr, "aot_driver: %s returned %d\n", sig->name, rc);
    return 1;
  }
  int failed = 0;
  for (int o = 0; o < sig->num_outputs; ++o) {
    const TfnAotTensorDesc* t = &sig->outputs[o];
    int64_t n = count(out_shapes[o], t->rank);
    if (!compare_dir) continue;
    snprintf(path, sizeof path, "%s/%s.npy", compare_dir, t->name);
    void* want = read_npy(path, n * elem_size(t->dtype));
    if (!want) {
      fprintf(stderr, "aot_driver: %s does not hold %lld values of output '%s'\n", path, (long long)n, t->name);
      return 1;
    }
    double worst = 0;
    int64_t nan_mismatches = 0;
    for (int64_t i = 0; i < n; ++i) {
      double g = element(t->dtype, outputs[o], i), w = element(t->dtype, want, i);
      if (isnan(g) || isnan(w)) {
        nan_mismatches += isnan(g) != isnan(w);
        continue;
      }
      double err = g == w ? 0 : fabs(g - w) / (1 + fabs(w)); /* equal infinities agree */
      if (err > worst || isnan(err)) worst = isnan(err) ? INFINITY : err;
    }
    int ok = worst <= tolerance && nan_mismatches == 0;
    printf("%s.%s: %lld values, max relative error %.3g (tolerance %g): %s\n", sig->name, t->name, (long long)n,
           worst, tolerance, ok ? "match" : "MISMATCH");
    failed |= !ok;
    free(want);
  }
  return failed;
}
