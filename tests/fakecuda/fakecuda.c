/*
 * fakecuda.c - a stand-in for the NVIDIA driver's user-mode libraries, for
 * testing stagec's GPU probe on machines without a GPU.
 *
 * Built twice by build.sh from this one file:
 *   -DFAKECUDA_API_CUDA  -> libcuda.so.1        (cu* driver API functions)
 *   -DFAKECUDA_API_NVML  -> libnvidia-ml.so.1   (nvml* functions)
 * and loaded by the code under test through LD_LIBRARY_PATH, exactly as the
 * real libraries would be. Every function returns a plain int (CUresult or
 * nvmlReturn_t), so any code can be returned, including codes newer than the
 * caller's bindings know (36, 47, 226, 227, 721, ...).
 *
 * Behaviour is chosen per test, and read again at every call (so a test may
 * change it between calls), from these environment variables:
 *
 *   FAKECUDA_SCENARIO  comma-separated tokens; the first preset wins, the
 *                      others add faults (default: h100x2):
 *       h100x2         two "NVIDIA H100 80GB HBM3" (CC 9.0, 132 SMs), P2P
 *                      between them; cuDriverGetVersion = 12040
 *       mixed          an "NVIDIA A100-SXM4-40GB" and an H100, no P2P
 *       mig            one MIG slice "NVIDIA H100 80GB HBM3 MIG 1g.10gb":
 *                      cuDeviceGetUuid_v2 gives the MIG UUID, the legacy
 *                      cuDeviceGetUuid the parent GPU's
 *       gh200          one "NVIDIA GH200 480GB" (CC 9.0, 132 SMs, PCI domain
 *                      0009)
 *       old_driver     one "Tesla V100-SXM2-32GB"; cuDriverGetVersion = 11040
 *       no_device      cuInit returns CUDA_ERROR_NO_DEVICE (100)
 *       zero_devices   cuInit succeeds, cuDeviceGetCount = 0
 *       init_error:N   cuInit returns N (any integer)
 *       hang[:FN]      FN (default cuInit) never returns
 *       hang_for:S[:FN] FN sleeps S seconds, then carries on
 *       crash[:FN]     FN executes a trap instruction (SIGILL), like code
 *                      that hit an impossible enum value
 *   FAKECUDA_CONFIG    path of a description file (below), applied after
 *                      the scenario
 *   FAKECUDA_DRIVER_VERSION  overrides cuDriverGetVersion's value
 *   FAKECUDA_FAIL      comma-separated FN[@ORDINAL]=CODE: FN returns CODE
 *                      (for the device with that ordinal only, if given)
 *                      before doing anything else, e.g.
 *                      "cuDeviceGetUuid_v2=721,cuDeviceGetName@1=36"
 *   FAKECUDA_LOG       path of a file to which every call appends a line
 *                      "FN" or "FN ORDINAL" (e.g. to check that a probe
 *                      never calls cuDevicePrimaryCtxRetain)
 *
 * Description file (FAKECUDA_CONFIG): one directive per line, '#' starts a
 * comment. The first "device" line replaces the scenario's devices.
 *   scenario TOKENS                  as FAKECUDA_SCENARIO
 *   driver_version 12080             cuDriverGetVersion
 *   nvml_driver 570.124.06           nvmlSystemGetDriverVersion
 *   device KEY=VALUE;KEY=VALUE...    keys: name, cc (9.0), mem (bytes,
 *                                    cuDeviceTotalMem_v2), free (bytes, NVML),
 *                                    nvml_total (bytes, default mem), sms,
 *                                    pci (string returned verbatim by
 *                                    cuDeviceGetPCIBusId, e.g. 0000:2A:00.0),
 *                                    uuid (GPU-... or MIG-...), uuid_v1
 *                                    (legacy cuDeviceGetUuid, default uuid),
 *                                    mig (0/1), compute_mode (0 default,
 *                                    2 prohibited, 3 exclusive process),
 *                                    held (0/1: another process holds the
 *                                    device; in compute_mode 3 or 2
 *                                    cuDevicePrimaryCtxRetain returns
 *                                    CUDA_ERROR_DEVICE_UNAVAILABLE, 46, as
 *                                    the driver refuses a context; NVML
 *                                    still answers, as it needs none)
 *   peer I J 0|1                     cuDeviceCanAccessPeer(I -> J)
 *   peer_all 0|1                     every pair (default 1)
 *   fail FN[@ORDINAL] CODE           as FAKECUDA_FAIL
 *   init_error CODE                  cuInit returns CODE
 *
 * Missing symbols: build.sh --omit SYMBOL builds libraries that do not
 * export SYMBOL (a linker version script keeps it local), e.g. a driver
 * without cuDeviceGetUuid_v2. cuGetProcAddress(_v2) resolves through the
 * library's own dynamic symbol table, so omitted symbols are missing there
 * too; it prefers SYMBOL_v2 when the requested CUDA version is >= 11040,
 * which only approximates the real per-symbol version table.
 *
 * Modelled driver rules: everything but cuDriverGetVersion, cuInit and the
 * error-string calls returns CUDA_ERROR_NOT_INITIALIZED (3) before a
 * successful cuInit; bad ordinals give CUDA_ERROR_INVALID_DEVICE (101);
 * unknown attributes CUDA_ERROR_INVALID_VALUE (1); cuGetErrorName/String of
 * an unknown code return CUDA_ERROR_INVALID_VALUE and set *pStr to NULL;
 * cuMemGetInfo_v2 needs a current context (CUDA_ERROR_INVALID_CONTEXT, 201).
 * NVML is simplified: its device list is the same list as CUDA's (a MIG
 * entry is its own handle, with nvmlDeviceIsMigDeviceHandle = 1), and
 * structure layouts follow nvml.h (nvmlMemory_t, nvmlPciInfo_t v3).
 *
 * Device names, memory sizes, UUIDs and PCI addresses of the presets are
 * test data: they look like real ones but are not measurements.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_DEV 16
#define GIB (1024ULL * 1024ULL * 1024ULL)
#define MIB (1024ULL * 1024ULL)

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef struct { char bytes[16]; } CUuuid;
typedef unsigned long long cuuint64_t;
typedef int nvmlReturn_t;
typedef void *nvmlDevice_t;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_NOT_FOUND = 500,
};
enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
};

struct dev {
    char name[256];
    int cc_major, cc_minor;
    unsigned long long mem, free_mem, nvml_total;
    int sms;
    char pci[64];
    unsigned pci_domain, pci_bus, pci_device;
    unsigned char uuid[16], uuid_v1[16];
    int has_uuid_v1;
    int mig;
    int compute_mode;
    int held;
};

struct cfg {
    int driver_version;
    char nvml_driver[96];
    int init_error;
    int ndev;
    struct dev d[MAX_DEV];
    unsigned char peer[MAX_DEV][MAX_DEV];
    char hang_fn[64];
    int hang_seconds; /* < 0: forever */
    char crash_fn[64];
    char fail[2048]; /* FN[@ORD]=CODE,... */
    int devices_from_file;
};

/* ------------------------------------------------------------------ helpers */

static void copy(char *dst, size_t cap, const char *src) {
    if (cap == 0) return;
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    c = tolower(c);
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* "GPU-xxxxxxxx-xxxx-..." or "MIG-..." or bare hex: 32 hex digits. */
static int parse_uuid(const char *s, unsigned char out[16]) {
    if (strncasecmp(s, "GPU-", 4) == 0 || strncasecmp(s, "MIG-", 4) == 0) s += 4;
    int n = 0;
    for (; *s && n < 32; s++) {
        if (*s == '-') continue;
        int v = hexval((unsigned char)*s);
        if (v < 0) return -1;
        if (n % 2 == 0) out[n / 2] = (unsigned char)(v << 4);
        else out[n / 2] |= (unsigned char)v;
        n++;
    }
    return n == 32 ? 0 : -1;
}

__attribute__((unused)) static void format_uuid(const unsigned char u[16], int mig, char *out, size_t cap) {
    char buf[64];
    int p = snprintf(buf, sizeof buf, "%s", mig ? "MIG-" : "GPU-");
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) buf[p++] = '-';
        p += snprintf(buf + p, sizeof buf - (size_t)p, "%02x", u[i]);
    }
    copy(out, cap, buf);
}

static void set_pci(struct dev *d, const char *pci) {
    copy(d->pci, sizeof d->pci, pci);
    unsigned dom = 0, bus = 0, dv = 0, fn = 0;
    if (sscanf(pci, "%x:%x:%x.%x", &dom, &bus, &dv, &fn) == 4) {
        d->pci_domain = dom;
        d->pci_bus = bus;
        d->pci_device = dv;
    }
}

static struct dev *add_dev(struct cfg *c, const char *name, int major, int minor,
                           unsigned long long mem, int sms, const char *pci, const char *uuid) {
    if (c->ndev >= MAX_DEV) return NULL;
    struct dev *d = &c->d[c->ndev++];
    memset(d, 0, sizeof *d);
    copy(d->name, sizeof d->name, name);
    d->cc_major = major;
    d->cc_minor = minor;
    d->mem = mem;
    d->nvml_total = mem;
    d->free_mem = mem > GIB ? mem - GIB : mem / 2;
    d->sms = sms;
    set_pci(d, pci);
    parse_uuid(uuid, d->uuid);
    d->mig = strncasecmp(uuid, "MIG-", 4) == 0;
    return d;
}

static void preset(struct cfg *c, const char *name) {
    c->ndev = 0;
    c->init_error = 0;
    c->driver_version = 12040;
    copy(c->nvml_driver, sizeof c->nvml_driver, "550.54.15");
    memset(c->peer, 1, sizeof c->peer);
    if (strcmp(name, "mixed") == 0) {
        add_dev(c, "NVIDIA A100-SXM4-40GB", 8, 0, 42298834944ULL, 108, "0000:18:00.0",
                "GPU-c639c2e9-f466-e020-6adb-b44eb1a82a66");
        add_dev(c, "NVIDIA H100 80GB HBM3", 9, 0, 85520809984ULL, 132, "0000:2A:00.0",
                "GPU-5e1f0c3a-9b2d-4c7e-8a61-0d3f2b9e7c41");
        memset(c->peer, 0, sizeof c->peer);
    } else if (strcmp(name, "mig") == 0) {
        struct dev *d = add_dev(c, "NVIDIA H100 80GB HBM3 MIG 1g.10gb", 9, 0, 10468982784ULL, 16,
                                "0000:18:00.0", "MIG-8f2b6c1d-3e4a-5b6c-9d7e-0a1b2c3d4e5f");
        if (d) {
            parse_uuid("GPU-1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", d->uuid_v1);
            d->has_uuid_v1 = 1;
        }
    } else if (strcmp(name, "gh200") == 0) {
        c->driver_version = 12080;
        copy(c->nvml_driver, sizeof c->nvml_driver, "570.124.06");
        add_dev(c, "NVIDIA GH200 480GB", 9, 0, 101468602368ULL, 132, "0009:01:00.0",
                "GPU-7c3e9a2f-1b4d-4e6a-9f80-2d5c7b1a3e9f");
    } else if (strcmp(name, "old_driver") == 0) {
        c->driver_version = 11040;
        copy(c->nvml_driver, sizeof c->nvml_driver, "470.82.01");
        add_dev(c, "Tesla V100-SXM2-32GB", 7, 0, 34089730048ULL, 80, "0000:86:00.0",
                "GPU-0d1e2f3a-4b5c-6d7e-8f90-a1b2c3d4e5f6");
    } else if (strcmp(name, "no_device") == 0) {
        c->init_error = CUDA_ERROR_NO_DEVICE;
    } else if (strcmp(name, "zero_devices") == 0) {
        /* no devices, cuInit succeeds */
    } else { /* h100x2 and anything unknown */
        add_dev(c, "NVIDIA H100 80GB HBM3", 9, 0, 85520809984ULL, 132, "0000:18:00.0",
                "GPU-2b7c6a4e-93d1-4f0a-b5c8-6e1d0f9a3b27");
        add_dev(c, "NVIDIA H100 80GB HBM3", 9, 0, 85520809984ULL, 132, "0000:2A:00.0",
                "GPU-9e4a1c7b-25f3-4d8e-a06b-3c7f1e2d5a90");
    }
}

static int is_preset(const char *t) {
    static const char *const names[] = {"h100x2", "mixed", "mig", "gh200", "old_driver", "no_device", "zero_devices"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(t, names[i]) == 0) return 1;
    return 0;
}

static void append_fail(struct cfg *c, const char *spec) {
    size_t n = strlen(c->fail);
    if (n && n + 1 < sizeof c->fail) c->fail[n++] = ',';
    copy(c->fail + n, sizeof c->fail - n, spec);
}

/* Fault tokens of a scenario list (presets are handled by the caller). */
static void fault_token(struct cfg *c, char *t) {
    if (strncmp(t, "init_error:", 11) == 0) {
        c->init_error = atoi(t + 11);
    } else if (strcmp(t, "hang") == 0 || strncmp(t, "hang:", 5) == 0) {
        copy(c->hang_fn, sizeof c->hang_fn, t[4] == ':' ? t + 5 : "cuInit");
        c->hang_seconds = -1;
    } else if (strncmp(t, "hang_for:", 9) == 0) {
        char *fn = strchr(t + 9, ':');
        c->hang_seconds = atoi(t + 9);
        copy(c->hang_fn, sizeof c->hang_fn, fn ? fn + 1 : "cuInit");
    } else if (strcmp(t, "crash") == 0 || strncmp(t, "crash:", 6) == 0) {
        copy(c->crash_fn, sizeof c->crash_fn, t[5] == ':' ? t + 6 : "cuInit");
    }
}

static void apply_scenario(struct cfg *c, const char *list, int allow_preset) {
    char buf[512];
    copy(buf, sizeof buf, list);
    int preset_done = !allow_preset;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ') t++;
        if (is_preset(t)) {
            if (!preset_done) preset(c, t);
            preset_done = 1;
        } else {
            fault_token(c, t);
        }
    }
}

static void device_line(struct cfg *c, char *spec) {
    if (!c->devices_from_file) {
        c->ndev = 0;
        c->devices_from_file = 1;
    }
    struct dev *d = add_dev(c, "NVIDIA Fake GPU", 9, 0, 80 * GIB, 132, "0000:00:00.0",
                            "GPU-00000000-0000-0000-0000-000000000000");
    if (!d) return;
    int free_set = 0, nvml_set = 0;
    for (char *save = NULL, *kv = strtok_r(spec, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
        while (*kv == ' ') kv++;
        char *eq = strchr(kv, '=');
        if (!eq) continue;
        *eq = '\0';
        const char *k = kv, *v = eq + 1;
        if (strcmp(k, "name") == 0) copy(d->name, sizeof d->name, v);
        else if (strcmp(k, "cc") == 0) sscanf(v, "%d.%d", &d->cc_major, &d->cc_minor);
        else if (strcmp(k, "mem") == 0) d->mem = strtoull(v, NULL, 0);
        else if (strcmp(k, "free") == 0) { d->free_mem = strtoull(v, NULL, 0); free_set = 1; }
        else if (strcmp(k, "nvml_total") == 0) { d->nvml_total = strtoull(v, NULL, 0); nvml_set = 1; }
        else if (strcmp(k, "sms") == 0) d->sms = atoi(v);
        else if (strcmp(k, "pci") == 0) set_pci(d, v);
        else if (strcmp(k, "uuid") == 0) { parse_uuid(v, d->uuid); d->mig = strncasecmp(v, "MIG-", 4) == 0 || d->mig; }
        else if (strcmp(k, "uuid_v1") == 0) d->has_uuid_v1 = parse_uuid(v, d->uuid_v1) == 0;
        else if (strcmp(k, "mig") == 0) d->mig = atoi(v);
        else if (strcmp(k, "compute_mode") == 0) d->compute_mode = atoi(v);
        else if (strcmp(k, "held") == 0) d->held = atoi(v);
    }
    if (!nvml_set) d->nvml_total = d->mem;
    if (!free_set) d->free_mem = d->mem > GIB ? d->mem - GIB : d->mem / 2;
}

static void config_file(struct cfg *c, const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        line[strcspn(line, "\r\n")] = '\0';
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (!*p) continue;
        char *arg = p + strcspn(p, " \t");
        if (*arg) *arg++ = '\0';
        while (*arg == ' ' || *arg == '\t') arg++;
        if (strcmp(p, "scenario") == 0) apply_scenario(c, arg, 1);
        else if (strcmp(p, "driver_version") == 0) c->driver_version = atoi(arg);
        else if (strcmp(p, "nvml_driver") == 0) copy(c->nvml_driver, sizeof c->nvml_driver, arg);
        else if (strcmp(p, "device") == 0) device_line(c, arg);
        else if (strcmp(p, "init_error") == 0) c->init_error = atoi(arg);
        else if (strcmp(p, "peer_all") == 0) memset(c->peer, atoi(arg) ? 1 : 0, sizeof c->peer);
        else if (strcmp(p, "peer") == 0) {
            int i, j, v;
            if (sscanf(arg, "%d %d %d", &i, &j, &v) == 3 && i >= 0 && j >= 0 && i < MAX_DEV && j < MAX_DEV)
                c->peer[i][j] = (unsigned char)(v != 0);
        } else if (strcmp(p, "fail") == 0) {
            char fn[128];
            int code;
            if (sscanf(arg, "%127s %d", fn, &code) == 2) {
                char spec[160];
                snprintf(spec, sizeof spec, "%s=%d", fn, code);
                append_fail(c, spec);
            }
        }
    }
    fclose(f);
}

/* The behaviour for this call: scenario, then file, then overrides. */
static void load(struct cfg *c) {
    memset(c, 0, sizeof *c);
    const char *scen = getenv("FAKECUDA_SCENARIO");
    if (!scen || !*scen) scen = "h100x2";
    /* the first preset token, else h100x2 */
    char buf[512];
    copy(buf, sizeof buf, scen);
    const char *chosen = "h100x2";
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ') t++;
        if (is_preset(t)) { chosen = t; break; }
    }
    preset(c, chosen);
    apply_scenario(c, scen, 0);
    const char *file = getenv("FAKECUDA_CONFIG");
    if (file && *file) config_file(c, file);
    const char *ver = getenv("FAKECUDA_DRIVER_VERSION");
    if (ver && *ver) c->driver_version = atoi(ver);
    const char *fail = getenv("FAKECUDA_FAIL");
    if (fail && *fail) append_fail(c, fail);
}

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void trace(const char *fn, int ordinal) {
    const char *path = getenv("FAKECUDA_LOG");
    if (!path || !*path) return;
    pthread_mutex_lock(&log_lock);
    FILE *f = fopen(path, "a");
    if (f) {
        if (ordinal >= 0) fprintf(f, "%s %d\n", fn, ordinal);
        else fprintf(f, "%s\n", fn);
        fclose(f);
    }
    pthread_mutex_unlock(&log_lock);
}

/* The injected code for FN (and ORDINAL), 0 when none. */
static int injected(const struct cfg *c, const char *fn, int ordinal) {
    char buf[sizeof c->fail];
    copy(buf, sizeof buf, c->fail);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ') t++;
        char *eq = strchr(t, '=');
        if (!eq) continue;
        *eq = '\0';
        char *at = strchr(t, '@');
        int want = -1;
        if (at) {
            *at = '\0';
            want = atoi(at + 1);
        }
        if (strcmp(t, fn) == 0 && (want < 0 || want == ordinal)) return atoi(eq + 1);
    }
    return 0;
}

static void misbehave(const struct cfg *c, const char *fn) {
    if (c->crash_fn[0] && strcmp(c->crash_fn, fn) == 0) __builtin_trap();
    if (c->hang_fn[0] && strcmp(c->hang_fn, fn) == 0) {
        if (c->hang_seconds < 0)
            for (;;) sleep(1);
        sleep((unsigned)c->hang_seconds);
    }
}

/* Every exported function starts here: load the behaviour, log the call,
 * hang or crash when asked, return an injected code when asked. */
#define ENTER(fn, ordinal)                                   \
    struct cfg C;                                            \
    load(&C);                                                \
    trace(fn, ordinal);                                      \
    misbehave(&C, fn);                                       \
    do {                                                     \
        int injected_code = injected(&C, fn, ordinal);       \
        if (injected_code != 0) return injected_code;        \
    } while (0)

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;

#ifdef FAKECUDA_API_CUDA
/* ---------------------------------------------------------------- CUDA API */

static int cu_initialised;
static int primary_refs[MAX_DEV];
static char primary_ctx[MAX_DEV]; /* their addresses are the context handles */
static __thread CUcontext current_ctx;

#define NEED_INIT()                                                  \
    do {                                                             \
        pthread_mutex_lock(&state_lock);                             \
        int ok_ = cu_initialised;                                    \
        pthread_mutex_unlock(&state_lock);                           \
        if (!ok_) return CUDA_ERROR_NOT_INITIALIZED;                 \
    } while (0)
#define NEED_DEV(dev) \
    do { if ((dev) < 0 || (dev) >= C.ndev) return CUDA_ERROR_INVALID_DEVICE; } while (0)

EXPORT CUresult cuDriverGetVersion(int *version) {
    ENTER("cuDriverGetVersion", -1);
    if (!version) return CUDA_ERROR_INVALID_VALUE;
    *version = C.driver_version;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuInit(unsigned int flags) {
    ENTER("cuInit", -1);
    if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
    if (C.init_error != 0) return C.init_error;
    pthread_mutex_lock(&state_lock);
    cu_initialised = 1;
    pthread_mutex_unlock(&state_lock);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetCount(int *count) {
    ENTER("cuDeviceGetCount", -1);
    NEED_INIT();
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    *count = C.ndev;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
    ENTER("cuDeviceGet", ordinal);
    NEED_INIT();
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    NEED_DEV(ordinal);
    *device = ordinal;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
    ENTER("cuDeviceGetName", dev);
    NEED_INIT();
    if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    NEED_DEV(dev);
    copy(name, (size_t)len, C.d[dev].name);
    return CUDA_SUCCESS;
}

/* Legacy symbol: the parent GPU's UUID for a MIG slice (uuid_v1). */
EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) {
    ENTER("cuDeviceGetUuid", dev);
    NEED_INIT();
    if (!uuid) return CUDA_ERROR_INVALID_VALUE;
    NEED_DEV(dev);
    memcpy(uuid->bytes, C.d[dev].has_uuid_v1 ? C.d[dev].uuid_v1 : C.d[dev].uuid, 16);
    return CUDA_SUCCESS;
}

/* CUDA 11.4+: the MIG compute instance's own UUID for a MIG slice. */
EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev) {
    ENTER("cuDeviceGetUuid_v2", dev);
    NEED_INIT();
    if (!uuid) return CUDA_ERROR_INVALID_VALUE;
    NEED_DEV(dev);
    memcpy(uuid->bytes, C.d[dev].uuid, 16);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
    ENTER("cuDeviceTotalMem_v2", dev);
    NEED_INIT();
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    NEED_DEV(dev);
    *bytes = (size_t)C.d[dev].mem;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetAttribute(int *value, int attrib, CUdevice dev) {
    ENTER("cuDeviceGetAttribute", dev);
    NEED_INIT();
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    NEED_DEV(dev);
    const struct dev *d = &C.d[dev];
    switch (attrib) {
    case 16: *value = d->sms; break;                /* MULTIPROCESSOR_COUNT */
    case 18: *value = 0; break;                     /* INTEGRATED */
    case 20: *value = d->compute_mode; break;       /* COMPUTE_MODE */
    case 33: *value = (int)d->pci_bus; break;       /* PCI_BUS_ID */
    case 34: *value = (int)d->pci_device; break;    /* PCI_DEVICE_ID */
    case 41: *value = 1; break;                     /* UNIFIED_ADDRESSING */
    case 50: *value = (int)d->pci_domain; break;    /* PCI_DOMAIN_ID */
    case 75: *value = d->cc_major; break;           /* COMPUTE_CAPABILITY_MAJOR */
    case 76: *value = d->cc_minor; break;           /* COMPUTE_CAPABILITY_MINOR */
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev) {
    ENTER("cuDeviceGetPCIBusId", dev);
    NEED_INIT();
    if (!pciBusId || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    NEED_DEV(dev);
    copy(pciBusId, (size_t)len, C.d[dev].pci);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev) {
    ENTER("cuDeviceCanAccessPeer", dev);
    NEED_INIT();
    if (!canAccessPeer) return CUDA_ERROR_INVALID_VALUE;
    NEED_DEV(dev);
    NEED_DEV(peerDev);
    *canAccessPeer = dev != peerDev && C.peer[dev][peerDev];
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
    ENTER("cuDevicePrimaryCtxRetain", dev);
    NEED_INIT();
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    NEED_DEV(dev);
    if (C.d[dev].compute_mode == 2 || (C.d[dev].compute_mode == 3 && C.d[dev].held))
        return 46; /* CUDA_ERROR_DEVICE_UNAVAILABLE */
    pthread_mutex_lock(&state_lock);
    primary_refs[dev]++;
    pthread_mutex_unlock(&state_lock);
    *pctx = &primary_ctx[dev];
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
    ENTER("cuDevicePrimaryCtxRelease_v2", dev);
    NEED_INIT();
    NEED_DEV(dev);
    pthread_mutex_lock(&state_lock);
    int ok = primary_refs[dev] > 0;
    if (ok) primary_refs[dev]--;
    pthread_mutex_unlock(&state_lock);
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx) {
    ENTER("cuCtxGetCurrent", -1);
    NEED_INIT();
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    *pctx = current_ctx;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext ctx) {
    ENTER("cuCtxSetCurrent", -1);
    NEED_INIT();
    if (ctx && ((char *)ctx < primary_ctx || (char *)ctx >= primary_ctx + MAX_DEV))
        return CUDA_ERROR_INVALID_CONTEXT;
    current_ctx = ctx;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes) {
    ENTER("cuMemGetInfo_v2", -1);
    NEED_INIT();
    if (!current_ctx) return CUDA_ERROR_INVALID_CONTEXT;
    int dev = (int)((char *)current_ctx - primary_ctx);
    if (dev >= C.ndev) return CUDA_ERROR_INVALID_CONTEXT;
    if (!free_bytes || !total_bytes) return CUDA_ERROR_INVALID_VALUE;
    *free_bytes = (size_t)C.d[dev].free_mem;
    *total_bytes = (size_t)C.d[dev].mem;
    return CUDA_SUCCESS;
}

/* Names of the CUresult codes this fake knows; cuGetErrorString answers
 * "fakecuda: NAME". Codes outside the table are unknown to this "driver". */
#define E(code, name) {code, #name, "fakecuda: " #name}
static const struct { int code; const char *name, *text; } errors[] = {
    E(0, CUDA_SUCCESS), E(1, CUDA_ERROR_INVALID_VALUE), E(2, CUDA_ERROR_OUT_OF_MEMORY),
    E(3, CUDA_ERROR_NOT_INITIALIZED), E(4, CUDA_ERROR_DEINITIALIZED), E(34, CUDA_ERROR_STUB_LIBRARY),
    E(36, CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER), E(46, CUDA_ERROR_DEVICE_UNAVAILABLE),
    E(47, CUDA_ERROR_MULTICAST_RESOURCE_FULL), E(100, CUDA_ERROR_NO_DEVICE), E(101, CUDA_ERROR_INVALID_DEVICE),
    E(102, CUDA_ERROR_DEVICE_NOT_LICENSED), E(200, CUDA_ERROR_INVALID_IMAGE), E(201, CUDA_ERROR_INVALID_CONTEXT),
    E(209, CUDA_ERROR_NO_BINARY_FOR_GPU), E(222, CUDA_ERROR_UNSUPPORTED_PTX_VERSION),
    E(225, CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC), E(226, CUDA_ERROR_CONTAINED),
    E(227, CUDA_ERROR_INSUFFICIENT_LOADER_VERSION), E(304, CUDA_ERROR_OPERATING_SYSTEM),
    E(400, CUDA_ERROR_INVALID_HANDLE), E(500, CUDA_ERROR_NOT_FOUND), E(700, CUDA_ERROR_ILLEGAL_ADDRESS),
    E(719, CUDA_ERROR_LAUNCH_FAILED), E(721, CUDA_ERROR_TENSOR_MEMORY_LEAK), E(800, CUDA_ERROR_NOT_PERMITTED),
    E(801, CUDA_ERROR_NOT_SUPPORTED), E(802, CUDA_ERROR_SYSTEM_NOT_READY),
    E(803, CUDA_ERROR_SYSTEM_DRIVER_MISMATCH), E(804, CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE),
    E(999, CUDA_ERROR_UNKNOWN),
};
#undef E

static int error_index(int code) {
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == code) return (int)i;
    return -1;
}

EXPORT CUresult cuGetErrorName(CUresult error, const char **pStr) {
    ENTER("cuGetErrorName", -1);
    if (!pStr) return CUDA_ERROR_INVALID_VALUE;
    int i = error_index(error);
    *pStr = i < 0 ? NULL : errors[i].name;
    return i < 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

EXPORT CUresult cuGetErrorString(CUresult error, const char **pStr) {
    ENTER("cuGetErrorString", -1);
    if (!pStr) return CUDA_ERROR_INVALID_VALUE;
    int i = error_index(error);
    *pStr = i < 0 ? NULL : errors[i].text;
    return i < 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

/* Resolves SYMBOL through this library's exported symbols (so --omit'ed
 * symbols are not found), preferring SYMBOL_v2 for CUDA >= 11.4 callers. */
static CUresult proc_address(const char *symbol, void **pfn, int cudaVersion, int *status) {
    if (!symbol || !pfn) return CUDA_ERROR_INVALID_VALUE;
    *pfn = NULL;
    Dl_info info;
    void *self = NULL;
    if (dladdr((void *)&cuDriverGetVersion, &info) && info.dli_fname)
        self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (!self) return CUDA_ERROR_NOT_FOUND;
    char name[256];
    if (cudaVersion >= 11040 && strstr(symbol, "_v") == NULL) {
        snprintf(name, sizeof name, "%s_v2", symbol);
        *pfn = dlsym(self, name);
    }
    if (!*pfn) *pfn = dlsym(self, symbol);
    dlclose(self);
    if (status) *status = *pfn ? 0 : 1; /* CU_GET_PROC_ADDRESS_SUCCESS / SYMBOL_NOT_FOUND */
    return *pfn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags) {
    ENTER("cuGetProcAddress", -1);
    (void)flags;
    return proc_address(symbol, pfn, cudaVersion, NULL);
}

EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                    int *symbolStatus) {
    ENTER("cuGetProcAddress_v2", -1);
    (void)flags;
    return proc_address(symbol, pfn, cudaVersion, symbolStatus);
}
#endif /* FAKECUDA_API_CUDA */

#ifdef FAKECUDA_API_NVML
/* ---------------------------------------------------------------- NVML API */

typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;

static int nvml_initialised;
static char nvml_handles[MAX_DEV]; /* their addresses are the device handles */

#define NVML_NEED_INIT()                                             \
    do {                                                             \
        pthread_mutex_lock(&state_lock);                             \
        int ok_ = nvml_initialised;                                  \
        pthread_mutex_unlock(&state_lock);                           \
        if (!ok_) return NVML_ERROR_UNINITIALIZED;                   \
    } while (0)

/* The configured device behind a handle, or NULL. */
static const struct dev *nvml_dev(const struct cfg *c, nvmlDevice_t h, int *index) {
    char *p = (char *)h;
    if (p < nvml_handles || p >= nvml_handles + MAX_DEV) return NULL;
    int i = (int)(p - nvml_handles);
    if (i >= c->ndev) return NULL;
    if (index) *index = i;
    return &c->d[i];
}

static int ordinal_of(nvmlDevice_t h) {
    char *p = (char *)h;
    return p >= nvml_handles && p < nvml_handles + MAX_DEV ? (int)(p - nvml_handles) : -1;
}

static nvmlReturn_t nvml_init(void) {
    pthread_mutex_lock(&state_lock);
    nvml_initialised++;
    pthread_mutex_unlock(&state_lock);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlInit_v2(void) { ENTER("nvmlInit_v2", -1); return nvml_init(); }
EXPORT nvmlReturn_t nvmlInit(void) { ENTER("nvmlInit", -1); return nvml_init(); }
EXPORT nvmlReturn_t nvmlInitWithFlags(unsigned int flags) {
    ENTER("nvmlInitWithFlags", -1);
    (void)flags;
    return nvml_init();
}

EXPORT nvmlReturn_t nvmlShutdown(void) {
    ENTER("nvmlShutdown", -1);
    pthread_mutex_lock(&state_lock);
    int ok = nvml_initialised > 0;
    if (ok) nvml_initialised--;
    pthread_mutex_unlock(&state_lock);
    return ok ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
}

EXPORT const char *nvmlErrorString(nvmlReturn_t result) {
    switch (result) {
    case 0: return "fakenvml: success";
    case 1: return "fakenvml: uninitialized";
    case 2: return "fakenvml: invalid argument";
    case 3: return "fakenvml: not supported";
    case 6: return "fakenvml: not found";
    case 7: return "fakenvml: insufficient size";
    case 9: return "fakenvml: driver not loaded";
    default: return "fakenvml: unknown error";
    }
}

EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    ENTER("nvmlSystemGetDriverVersion", -1);
    NVML_NEED_INIT();
    if (!version) return NVML_ERROR_INVALID_ARGUMENT;
    if (strlen(C.nvml_driver) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
    copy(version, length, C.nvml_driver);
    return NVML_SUCCESS;
}

static nvmlReturn_t cuda_driver_version(const struct cfg *c, int *v) {
    if (!v) return NVML_ERROR_INVALID_ARGUMENT;
    *v = c->driver_version;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v) {
    ENTER("nvmlSystemGetCudaDriverVersion", -1);
    NVML_NEED_INIT();
    return cuda_driver_version(&C, v);
}

EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v) {
    ENTER("nvmlSystemGetCudaDriverVersion_v2", -1);
    NVML_NEED_INIT();
    return cuda_driver_version(&C, v);
}

static nvmlReturn_t device_count(const struct cfg *c, unsigned int *n) {
    if (!n) return NVML_ERROR_INVALID_ARGUMENT;
    *n = (unsigned)c->ndev;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n) {
    ENTER("nvmlDeviceGetCount_v2", -1);
    NVML_NEED_INIT();
    return device_count(&C, n);
}

EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int *n) {
    ENTER("nvmlDeviceGetCount", -1);
    NVML_NEED_INIT();
    return device_count(&C, n);
}

static nvmlReturn_t handle_by_index(const struct cfg *c, unsigned int i, nvmlDevice_t *h) {
    if (!h || i >= (unsigned)c->ndev) return NVML_ERROR_INVALID_ARGUMENT;
    *h = &nvml_handles[i];
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *h) {
    ENTER("nvmlDeviceGetHandleByIndex_v2", (int)i);
    NVML_NEED_INIT();
    return handle_by_index(&C, i, h);
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int i, nvmlDevice_t *h) {
    ENTER("nvmlDeviceGetHandleByIndex", (int)i);
    NVML_NEED_INIT();
    return handle_by_index(&C, i, h);
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *h) {
    ENTER("nvmlDeviceGetHandleByUUID", -1);
    NVML_NEED_INIT();
    if (!uuid || !h) return NVML_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < C.ndev; i++) {
        char s[64];
        format_uuid(C.d[i].uuid, C.d[i].mig, s, sizeof s);
        if (strcasecmp(s, uuid) == 0) {
            *h = &nvml_handles[i];
            return NVML_SUCCESS;
        }
    }
    return NVML_ERROR_NOT_FOUND;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *busId, nvmlDevice_t *h) {
    ENTER("nvmlDeviceGetHandleByPciBusId_v2", -1);
    NVML_NEED_INIT();
    if (!busId || !h) return NVML_ERROR_INVALID_ARGUMENT;
    unsigned dom = 0, bus = 0, dv = 0, fn = 0;
    if (sscanf(busId, "%x:%x:%x.%x", &dom, &bus, &dv, &fn) != 4) return NVML_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < C.ndev; i++) {
        if (!C.d[i].mig && C.d[i].pci_domain == dom && C.d[i].pci_bus == bus && C.d[i].pci_device == dv) {
            *h = &nvml_handles[i];
            return NVML_SUCCESS;
        }
    }
    return NVML_ERROR_NOT_FOUND;
}

EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t h, char *name, unsigned int length) {
    ENTER("nvmlDeviceGetName", ordinal_of(h));
    NVML_NEED_INIT();
    const struct dev *d = nvml_dev(&C, h, NULL);
    if (!d || !name) return NVML_ERROR_INVALID_ARGUMENT;
    if (strlen(d->name) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
    copy(name, length, d->name);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t h, char *uuid, unsigned int length) {
    ENTER("nvmlDeviceGetUUID", ordinal_of(h));
    NVML_NEED_INIT();
    const struct dev *d = nvml_dev(&C, h, NULL);
    if (!d || !uuid) return NVML_ERROR_INVALID_ARGUMENT;
    char s[64];
    format_uuid(d->uuid, d->mig, s, sizeof s);
    if (strlen(s) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
    copy(uuid, length, s);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t h, nvmlMemory_t *m) {
    ENTER("nvmlDeviceGetMemoryInfo", ordinal_of(h));
    NVML_NEED_INIT();
    const struct dev *d = nvml_dev(&C, h, NULL);
    if (!d || !m) return NVML_ERROR_INVALID_ARGUMENT;
    m->total = d->nvml_total;
    m->free = d->free_mem < d->nvml_total ? d->free_mem : d->nvml_total;
    m->used = m->total - m->free;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t h, nvmlPciInfo_t *pci) {
    ENTER("nvmlDeviceGetPciInfo_v3", ordinal_of(h));
    NVML_NEED_INIT();
    const struct dev *d = nvml_dev(&C, h, NULL);
    if (!d || !pci) return NVML_ERROR_INVALID_ARGUMENT;
    memset(pci, 0, sizeof *pci);
    pci->domain = d->pci_domain;
    pci->bus = d->pci_bus;
    pci->device = d->pci_device;
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", d->pci_domain & 0xffffu, d->pci_bus & 0xffu,
             d->pci_device & 0xffu);
    snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.0", d->pci_domain, d->pci_bus & 0xffu, d->pci_device & 0xffu);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t h, unsigned int *isMig) {
    ENTER("nvmlDeviceIsMigDeviceHandle", ordinal_of(h));
    NVML_NEED_INIT();
    const struct dev *d = nvml_dev(&C, h, NULL);
    if (!d || !isMig) return NVML_ERROR_INVALID_ARGUMENT;
    *isMig = (unsigned)(d->mig != 0);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t h, unsigned int *current, unsigned int *pending) {
    ENTER("nvmlDeviceGetMigMode", ordinal_of(h));
    NVML_NEED_INIT();
    const struct dev *d = nvml_dev(&C, h, NULL);
    if (!d || !current || !pending) return NVML_ERROR_INVALID_ARGUMENT;
    *current = *pending = (unsigned)(d->mig != 0);
    return NVML_SUCCESS;
}
#endif /* FAKECUDA_API_NVML */
