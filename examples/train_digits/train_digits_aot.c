/* Training on in a compiled object: the digits CNN's "train" and "save"
 * signatures compiled by tfn-aot (digits.o + digits.h, made at build time
 * from the bundle train_digits exported) and linked into a plain C program
 * with no other part of tfn. tfn-aot compiles a signature that updates
 * variables as a pure function: the variables (the model's weights, Adam's
 * moments and step count) are var_NAME inputs and outputs, and this program
 * owns them. "save" gives their exported values, the start.
 *
 * It runs the same batches the runtime ran in train_digits (the two epochs
 * after the twelve the traced step trained) and checks each loss against
 * the runtime's, which train_digits wrote to runtime_losses.txt.
 *
 *   train_digits_aot DATA_DIR BUNDLE_DIR     (exit 1 when the curves differ) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digits.h"

enum { kBatch = 32, kImage = 8 * 8 };

/* Reads a C-order .npy of `elem` bytes per element; returns its data and
 * the length of its first dim (NULL on any error, said on stderr). */
static void* read_npy(const char* path, const char* descr, size_t elem, long long* rows) {
  FILE* f = fopen(path, "rb");
  unsigned char pre[10];
  if (!f || fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY\x01", 7) != 0) {
    fprintf(stderr, "train_digits_aot: %s is not a .npy file (version 1)\n", path);
    if (f) fclose(f);
    return NULL;
  }
  size_t header_len = (size_t)(pre[8] | (pre[9] << 8));
  char* header = calloc(header_len + 1, 1);
  const char* shape = NULL;
  if (fread(header, 1, header_len, f) == header_len) shape = strstr(header, "'shape': (");
  if (!shape || !strstr(header, descr)) {
    fprintf(stderr, "train_digits_aot: %s: expected dtype %s, got header %s\n", path, descr,
            header);
    free(header);
    fclose(f);
    return NULL;
  }
  *rows = strtoll(shape + 10, NULL, 10);
  free(header);
  long pos = ftell(f);
  fseek(f, 0, SEEK_END);
  size_t bytes = (size_t)(ftell(f) - pos);
  fseek(f, pos, SEEK_SET);
  void* data = malloc(bytes ? bytes : 1);
  if (fread(data, 1, bytes, f) != bytes || *rows <= 0 || bytes % (size_t)*rows != 0 ||
      bytes / (size_t)*rows % elem != 0) {
    fprintf(stderr, "train_digits_aot: %s is truncated\n", path);
    free(data);
    data = NULL;
  }
  fclose(f);
  return data;
}

/* Bytes of a static tensor, or -1 for a dtype other than bool, int32,
 * int64, float32 and float64 (the digits model has no other). */
static int64_t desc_bytes(const TfnAotTensorDesc* d) {
  static const int sizes[] = {0, 1, 4, 8, 4, 8}; /* bool, int32, int64, f32, f64 */
  if (d->dtype <= 0 || d->dtype >= 6) return -1;
  int64_t n = sizes[d->dtype];
  for (int k = 0; k < d->rank; ++k) n *= d->size[k];
  return n;
}

/* The index of `name` among a signature's tensors, or -1. */
static int find(const TfnAotTensorDesc* descs, int count, const char* name) {
  for (int i = 0; i < count; ++i) {
    if (strcmp(descs[i].name, name) == 0) return i;
  }
  return -1;
}

/* "var_" + the variable's name with characters other than letters, digits
 * and '_' as '_': the name tfn-aot gives its state input and output. */
static void state_name(const char* variable, char* out, size_t size) {
  snprintf(out, size, "var_%s", variable);
  for (char* c = out + 4; *c; ++c) {
    if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
          (*c >= '0' && *c <= '9')))
      *c = '_';
  }
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: train_digits_aot DATA_DIR BUNDLE_DIR\n");
    return 2;
  }
  char path[4096];
  long long n = 0, ny = 0;
  snprintf(path, sizeof path, "%s/x_train.npy", argv[1]);
  float* xs = read_npy(path, "'<f4'", sizeof(float), &n);
  snprintf(path, sizeof path, "%s/y_train.npy", argv[1]);
  int64_t* ys = read_npy(path, "'<i8'", sizeof(int64_t), &ny);
  snprintf(path, sizeof path, "%s/runtime_losses.txt", argv[2]);
  FILE* losses = fopen(path, "r");
  if (!xs || !ys || n != ny || !losses) {
    if (!losses) fprintf(stderr, "train_digits_aot: cannot read %s\n", path);
    return 1;
  }
  const TfnAotSignature* save = &digits_save_signature;
  const TfnAotSignature* train = &digits_train_signature;

  /* The state: one buffer per variable, filled by "save" (no inputs). */
  int num_vars = save->num_outputs;
  void** state = calloc((size_t)num_vars, sizeof(void*));
  for (int v = 0; v < num_vars; ++v) {
    if (desc_bytes(&save->outputs[v]) < 0) {
      fprintf(stderr, "train_digits_aot: variable %s has a dtype this program does not size\n",
              save->outputs[v].name);
      return 1;
    }
    state[v] = malloc((size_t)desc_bytes(&save->outputs[v]) + 1);
  }
  void* scratch = aligned_alloc(64, (size_t)(digits_save_scratch_size() + 64) / 64 * 64);
  const void* no_inputs[1] = {NULL};
  int64_t no_dims[1] = {0};
  if (save->run(no_inputs, no_dims, state, scratch) != TFN_AOT_OK) {
    fprintf(stderr, "train_digits_aot: save failed\n");
    return 1;
  }
  free(scratch);

  /* train's inputs: images, labels, then var_* (the state, by name); its
   * outputs: the loss, then the new var_* values, written to a second set of
   * buffers that is swapped with the first after each step. */
  const void** in = calloc((size_t)train->num_inputs, sizeof(void*));
  void** out = calloc((size_t)train->num_outputs, sizeof(void*));
  int* in_var = calloc((size_t)train->num_inputs, sizeof(int));
  int* out_var = calloc((size_t)train->num_outputs, sizeof(int));
  void** next = calloc((size_t)num_vars, sizeof(void*));
  float loss = 0;
  for (int v = 0; v < num_vars; ++v) next[v] = malloc((size_t)desc_bytes(&save->outputs[v]) + 1);
  for (int i = 0; i < train->num_inputs; ++i) in_var[i] = -1;
  for (int i = 0; i < train->num_outputs; ++i) out_var[i] = -1;
  for (int v = 0; v < num_vars; ++v) {
    char name[256];
    state_name(save->outputs[v].name, name, sizeof name);
    int i = find(train->inputs, train->num_inputs, name);
    int o = find(train->outputs, train->num_outputs, name);
    if (i < 0 || o < 0) {
      fprintf(stderr, "train_digits_aot: train has no state %s\n", name);
      return 1;
    }
    in_var[i] = v;
    out_var[o] = v;
  }
  scratch = aligned_alloc(64, (size_t)(digits_train_scratch_size() + 64) / 64 * 64);
  const long long batches = n / kBatch;
  double worst = 0;
  for (long long step = 0; step < 2 * batches; ++step) {
    const long long first = (step % batches) * kBatch;
    for (int i = 0; i < train->num_inputs; ++i) in[i] = in_var[i] >= 0 ? state[in_var[i]] : NULL;
    for (int o = 0; o < train->num_outputs; ++o)
      out[o] = out_var[o] >= 0 ? next[out_var[o]] : &loss;
    in[find(train->inputs, train->num_inputs, "arg0")] = xs + first * kImage;
    in[find(train->inputs, train->num_inputs, "arg1")] = ys + first;
    if (train->run(in, no_dims, out, scratch) != TFN_AOT_OK) {
      fprintf(stderr, "train_digits_aot: train failed at step %lld\n", step);
      return 1;
    }
    void** swap = state;
    state = next;
    next = swap;
    double want = 0;
    if (fscanf(losses, "%lf", &want) != 1) {
      fprintf(stderr, "train_digits_aot: runtime_losses.txt has fewer than %lld losses\n",
              step + 1);
      return 1;
    }
    double diff = fabs(loss - want) / (1e-3 + want);
    if (diff > worst) worst = diff;
    if ((step + 1) % batches == 0)
      printf("epoch %lld: loss %.5f compiled, %.5f runtime\n", (step + 1) / batches, loss, want);
  }
  printf("compiled object: largest relative loss difference %.2g over %lld steps\n", worst,
         2 * batches);
  if (worst > 1e-4) {
    fprintf(stderr, "train_digits_aot: the compiled object's losses leave the runtime's\n");
    return 1;
  }
  return 0;
}
