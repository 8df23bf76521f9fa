/* An app that links the AOT-compiled mlp example (mlp.o + mlp.h from
 * tfn-aot) and nothing else of tfn: it classifies a deterministic batch,
 * writes its input and output as .npy files, and can check its output
 * against another .npy (e.g. from tfn-run) within 1e-5. With --threads N
 * it runs on N threads through the header-only pool tfn/aot_thread_pool.h.
 *
 *   mlp_app [--batch N] [--threads N] [--write DIR] [--compare OUTPUT.npy] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlp.h"
#include "tfn/aot_thread_pool.h"

/* A minimal .npy writer/reader for float32 C-order arrays. */
static int write_npy(const char* path, const float* data, int64_t rows, int64_t cols) {
  FILE* f = fopen(path, "wb");
  if (!f) return -1;
  char header[128];
  int n = snprintf(header, sizeof header, "{'descr': '<f4', 'fortran_order': False, 'shape': (%lld, %lld), }",
                   (long long)rows, (long long)cols);
  int total = 10 + n + 1, pad = (64 - total % 64) % 64;
  unsigned short len = (unsigned short)(n + pad + 1);
  fwrite("\x93NUMPY\x01\x00", 1, 8, f);
  fwrite(&len, 2, 1, f);
  fwrite(header, 1, (size_t)n, f);
  for (int i = 0; i < pad; ++i) fputc(' ', f);
  fputc('\n', f);
  fwrite(data, sizeof(float), (size_t)(rows * cols), f);
  return fclose(f);
}

static float* read_npy(const char* path, int64_t expect) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char pre[10];
  if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
    fclose(f);
    return NULL;
  }
  fseek(f, 10 + (pre[8] | (pre[9] << 8)), SEEK_SET);
  float* data = malloc(sizeof(float) * (size_t)expect);
  size_t got = fread(data, sizeof(float), (size_t)expect, f);
  fclose(f);
  if ((int64_t)got != expect) {
    free(data);
    return NULL;
  }
  return data;
}

int main(int argc, char** argv) {
  int64_t batch = 4;
  int threads = 1;
  const char* write_dir = NULL;
  const char* compare = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--batch") && i + 1 < argc) batch = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--write") && i + 1 < argc) write_dir = argv[++i];
    else if (!strcmp(argv[i], "--compare") && i + 1 < argc) compare = argv[++i];
    else {
      fprintf(stderr, "usage: mlp_app [--batch N] [--threads N] [--write DIR] [--compare OUTPUT.npy]\n");
      return 2;
    }
  }
  float* x = malloc(sizeof(float) * (size_t)(batch * 784));
  float* probs = malloc(sizeof(float) * (size_t)(batch * 10));
  for (int64_t i = 0; i < batch * 784; ++i) x[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
  int64_t bytes = mlp_serving_default_scratch_size(batch);
  void* scratch = aligned_alloc(64, (size_t)((bytes + 63) / 64 * 64));
  /* Threads: a pool, its run options, the _with_options call. */
  TfnAotThreadPool* pool = threads > 1 ? tfn_aot_thread_pool_create(threads) : NULL;
  TfnAotRunOptions run_options = tfn_aot_thread_pool_run_options(pool);
  int32_t rc = mlp_serving_default_with_options(x, batch, probs, scratch, &run_options);
  tfn_aot_thread_pool_destroy(pool);
  if (rc != TFN_AOT_OK) {
    fprintf(stderr, "mlp_app: mlp_serving_default failed with code %d\n", rc);
    return 1;
  }
  printf("mlp.o (no tfn runtime): batch %lld, %d thread%s, scratch %lld bytes\n", (long long)batch,
         run_options.num_threads, run_options.num_threads == 1 ? "" : "s", (long long)bytes);
  for (int64_t b = 0; b < batch; ++b) {
    int best = 0;
    for (int k = 1; k < 10; ++k) best = probs[b * 10 + k] > probs[b * 10 + best] ? k : best;
    printf("  row %lld: class %d (p = %.4f)\n", (long long)b, best, probs[b * 10 + best]);
  }
  if (write_dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/input.npy", write_dir);
    if (write_npy(path, x, batch, 784) != 0) return 1;
    snprintf(path, sizeof path, "%s/aot_probabilities.npy", write_dir);
    if (write_npy(path, probs, batch, 10) != 0) return 1;
  }
  if (compare) {
    float* want = read_npy(compare, batch * 10);
    if (!want) {
      fprintf(stderr, "mlp_app: cannot read %lld floats from %s\n", (long long)(batch * 10), compare);
      return 1;
    }
    double worst = 0;
    for (int64_t i = 0; i < batch * 10; ++i) worst = fmax(worst, fabs(probs[i] - want[i]));
    printf("max |AOT - %s| = %.3g (tolerance 1e-5): %s\n", compare, worst, worst <= 1e-5 ? "match" : "MISMATCH");
    if (worst > 1e-5) return 1;
  }
  return 0;
}
