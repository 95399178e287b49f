/*
 * selftest.c - a tiny probe written against the fake driver the way stagec's
 * probe should call a real one: the library is opened by name (found through
 * LD_LIBRARY_PATH), every symbol is looked up and may be missing, and every
 * return value is an int. Prints one line per fact; selftest.sh checks them.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef int (*fn_i)(int *);
typedef int (*fn_u)(unsigned);
typedef int (*fn_get)(int *, int);
typedef int (*fn_str)(char *, int, int);
typedef int (*fn_uuid)(unsigned char *, int);
typedef int (*fn_mem)(size_t *, int);
typedef int (*fn_attr)(int *, int, int);
typedef int (*fn_peer)(int *, int, int);
typedef int (*fn_err)(int, const char **);
typedef int (*fn_proc)(const char *, void **, int, unsigned long long, int *);

static void *sym(void *lib, const char *name) {
    void *p = dlsym(lib, name);
    if (!p) printf("missing %s\n", name);
    return p;
}

static void print_uuid(const char *label, const unsigned char u[16]) {
    printf("%s=", label);
    for (int i = 0; i < 16; i++) printf("%s%02x", (i == 4 || i == 6 || i == 8 || i == 10) ? "-" : "", u[i]);
    printf(" ");
}

static void nvml(void) {
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        printf("nvml absent\n");
        return;
    }
    int (*init)(void) = (int (*)(void))dlsym(lib, "nvmlInit_v2");
    int (*ver)(char *, unsigned) = (int (*)(char *, unsigned))dlsym(lib, "nvmlSystemGetDriverVersion");
    int (*by_uuid)(const char *, void **) = (int (*)(const char *, void **))dlsym(lib, "nvmlDeviceGetHandleByUUID");
    int (*by_index)(unsigned, void **) = (int (*)(unsigned, void **))dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    int (*uuid)(void *, char *, unsigned) = (int (*)(void *, char *, unsigned))dlsym(lib, "nvmlDeviceGetUUID");
    int (*mem)(void *, unsigned long long *) = (int (*)(void *, unsigned long long *))dlsym(lib, "nvmlDeviceGetMemoryInfo");
    int (*pci)(void *, void *) = (int (*)(void *, void *))dlsym(lib, "nvmlDeviceGetPciInfo_v3");
    if (!init || !ver || !by_uuid || !by_index || !uuid || !mem || !pci) {
        printf("nvml incomplete\n");
        return;
    }
    char v[96] = "";
    int rc = init();
    printf("nvml init=%d ", rc);
    rc = ver(v, sizeof v);
    printf("driver=%s rc=%d\n", v, rc);
    void *h = NULL;
    if (by_index(0, &h) == 0) {
        char u[96] = "";
        uuid(h, u, sizeof u);
        void *h2 = NULL;
        int found = by_uuid(u, &h2);
        unsigned long long m[3] = {0, 0, 0};
        mem(h2, m);
        struct { char legacy[16]; unsigned dom, bus, dev, id, sub; char busid[32]; } p;
        memset(&p, 0, sizeof p);
        pci(h2, &p);
        printf("nvml dev0 uuid=%s by_uuid=%d same=%d total=%llu free=%llu used=%llu busId=%s legacy=%s\n", u, found,
               h == h2, m[0], m[1], m[2], p.busid, p.legacy);
    }
}

int main(void) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        printf("no libcuda: %s\n", dlerror());
        return 1;
    }
    fn_i drv = (fn_i)sym(lib, "cuDriverGetVersion");
    fn_u init = (fn_u)sym(lib, "cuInit");
    fn_i count = (fn_i)sym(lib, "cuDeviceGetCount");
    fn_get get = (fn_get)sym(lib, "cuDeviceGet");
    fn_str name = (fn_str)sym(lib, "cuDeviceGetName");
    fn_uuid uuid1 = (fn_uuid)sym(lib, "cuDeviceGetUuid");
    fn_uuid uuid2 = (fn_uuid)sym(lib, "cuDeviceGetUuid_v2");
    fn_mem total = (fn_mem)sym(lib, "cuDeviceTotalMem_v2");
    fn_attr attr = (fn_attr)sym(lib, "cuDeviceGetAttribute");
    fn_str busid = (fn_str)sym(lib, "cuDeviceGetPCIBusId");
    fn_peer peer = (fn_peer)sym(lib, "cuDeviceCanAccessPeer");
    fn_err ename = (fn_err)sym(lib, "cuGetErrorName");
    fn_proc proc = (fn_proc)sym(lib, "cuGetProcAddress_v2");
    if (!drv || !init || !count || !get || !name || !uuid1 || !total || !attr || !busid || !peer || !ename) return 2;

    int v = 0, rc = drv(&v);
    printf("driver rc=%d version=%d\n", rc, v);
    int pre = count(&v);
    rc = init(0);
    const char *en = NULL;
    int erc = ename(rc, &en);
    printf("init rc=%d name=%s name_rc=%d count_before_init=%d\n", rc, en ? en : "(null)", erc, pre);
    if (rc != 0) return 0;
    int n = -1;
    rc = count(&n);
    printf("count rc=%d n=%d\n", rc, n);
    for (int i = 0; i < n; i++) {
        int d = -1;
        if ((rc = get(&d, i)) != 0) {
            printf("dev%d get rc=%d\n", i, rc);
            continue;
        }
        char nm[256] = "", bus[64] = "";
        unsigned char u1[16] = {0}, u2[16] = {0};
        size_t mem = 0;
        int major = -1, minor = -1, sms = -1, dom = -1, b = -1, mode = -1;
        int rn = name(nm, sizeof nm, d);
        int r1 = uuid1(u1, d);
        int r2 = uuid2 ? uuid2(u2, d) : -1;
        int rm = total(&mem, d);
        attr(&major, 75, d);
        attr(&minor, 76, d);
        attr(&sms, 16, d);
        attr(&dom, 50, d);
        attr(&b, 33, d);
        attr(&mode, 20, d);
        int bad = -1, rbad = attr(&bad, 123456, d);
        int rb = busid(bus, sizeof bus, d);
        printf("dev%d name=\"%s\" rc=%d cc=%d.%d sms=%d mem=%zu rc=%d pci=%s rc=%d domain=%d bus=%d mode=%d bad_attr_rc=%d ",
               i, nm, rn, major, minor, sms, mem, rm, bus, rb, dom, b, mode, rbad);
        print_uuid("uuid_v1", u1);
        printf("rc1=%d ", r1);
        print_uuid("uuid_v2", u2);
        printf("rc2=%d\n", r2);
        for (int j = 0; j < n; j++) {
            int can = -1;
            rc = peer(&can, d, j);
            printf("peer %d->%d=%d rc=%d\n", i, j, can, rc);
        }
    }
    int bad_dev = -1;
    printf("get_bad_ordinal rc=%d\n", get(&bad_dev, n));
    int codes[] = {721, 226, 36, 12345};
    for (size_t k = 0; k < sizeof codes / sizeof codes[0]; k++) {
        en = "untouched";
        erc = ename(codes[k], &en);
        printf("errname %d=%s rc=%d\n", codes[k], en ? en : "(null)", erc);
    }
    if (proc) {
        void *p = NULL;
        int st = -1;
        rc = proc("cuDeviceGetUuid", &p, 12040, 0, &st);
        Dl_info info;
        const char *resolved = (p && dladdr(p, &info) && info.dli_sname) ? info.dli_sname : "(none)";
        printf("procaddr cuDeviceGetUuid rc=%d status=%d resolved=%s\n", rc, st, resolved);
    }
    nvml();
    return 0;
}
