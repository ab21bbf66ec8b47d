/* The client of test/tools/zygote.py in C: one per lit RUN-line command.

   Same protocol and behaviour as zygote.py's `client` (see there), without starting a
   Python interpreter (~8 ms of CPU for `python -S -E` alone, ~13 ms with the client, paid
   by each of the ~900 tool commands of a lit run). test/lit.cfg.py compiles it with `cc` when
   there is one (else the Python client runs):

       zygote_client SOCKET SCRIPT ARGS...

   Sends the server a 4-byte big-endian payload size with this process's fds 0, 1 and 2
   (SCM_RIGHTS), then the payload (zygote.py's `_payload`: NUL-separated "WSZ1", the argument
   count, SCRIPT ARGS..., the working directory, each NAME=VALUE of the environment), waits
   for the 4-byte big-endian signed exit status and exits with it. Without a server (no
   socket, refused) it runs SCRIPT itself (execv). */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

extern char **environ;

static char *buf;
static size_t len, cap;

static void put(const char *s, size_t n) {
    if (len + n + 1 > cap) {
        cap = (len + n + 1) * 2;
        buf = realloc(buf, cap);
        if (buf == NULL) {
            perror("zygote_client");
            exit(70);
        }
    }
    memcpy(buf + len, s, n);
    len += n;
}

static void field(const char *s, int first) {
    if (!first) put("", 1);  /* the NUL between two fields */
    put(s, strlen(s));
}

static int send_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: zygote_client SOCKET SCRIPT ARGS...\n");
        return 2;
    }
    char **tool = argv + 2;  /* SCRIPT ARGS... */
    char count[32], cwd[65536];
    snprintf(count, sizeof count, "%d", argc - 2);
    if (getcwd(cwd, sizeof cwd) == NULL) execv(tool[0], tool);  /* let the real tool say it */
    field("WSZ1", 1);
    field(count, 0);
    for (int i = 0; i < argc - 2; i++) field(tool[i], 0);
    field(cwd, 0);
    for (char **e = environ; *e != NULL; e++) field(*e, 0);

    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (strlen(argv[1]) >= sizeof addr.sun_path) execv(tool[0], tool);
    strcpy(addr.sun_path, argv[1]);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&addr, sizeof addr) < 0) {
        execv(tool[0], tool);  /* no server: the real process */
        perror(tool[0]);
        return 127;
    }

    unsigned char hdr[4] = {(unsigned char)(len >> 24), (unsigned char)(len >> 16), (unsigned char)(len >> 8),
                            (unsigned char)len};
    int fds[3] = {0, 1, 2};
    char control[CMSG_SPACE(sizeof fds)];
    memset(control, 0, sizeof control);
    struct iovec iov = {hdr, sizeof hdr};
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    ssize_t sent;
    do sent = sendmsg(s, &msg, 0); while (sent < 0 && errno == EINTR);
    if (sent != (ssize_t)sizeof hdr || send_all(s, buf, len) < 0) {
        close(s);
        execv(tool[0], tool);  /* the server went away: the real process */
        perror(tool[0]);
        return 127;
    }

    unsigned char status[4];
    size_t got = 0;
    while (got < sizeof status) {
        ssize_t k = read(s, status + got, sizeof status - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            const char *name = strrchr(tool[0], '/');
            fprintf(stderr, "zygote: the forked %s died without an exit status\n", name ? name + 1 : tool[0]);
            return 70;
        }
        got += (size_t)k;
    }
    int32_t code = (int32_t)(((uint32_t)status[0] << 24) | ((uint32_t)status[1] << 16) |
                             ((uint32_t)status[2] << 8) | (uint32_t)status[3]);
    return (int)(code & 0xff);  /* what sys.exit(code) gives */
}
