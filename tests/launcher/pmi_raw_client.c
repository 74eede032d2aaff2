/*
 * pmi_raw_client — a rank that speaks the PMI-1 wire protocol to skiffrun by
 * hand (no src/boot), to test the launcher's server line by line.
 *
 *   pmi_raw_client basic      every command, bounds and error replies, 2 barriers
 *   pmi_raw_client malformed  rank 0 also sends broken lines; the connection must
 *                             answer each with an error and stay usable
 *   pmi_raw_client abort R    rank R sends cmd=abort exitcode=5; the others wait
 *                             in a barrier until the launcher kills them
 *   pmi_raw_client leave      rank 0 exits 0 at once without PMI; the others wait
 *                             in a barrier it can never join
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmi_wire.h"
#include "testutil.h"

static int pmi_fd, rank, size;
static pmi_linebuf_t inbuf;
static char reply_line[PMI_WIRE_LINE_MAX];
static pmi_kv_t reply_kv[PMI_WIRE_MAX_WORDS];
static int reply_n;

static void send_line(const char *line)
{
    CHECK(pmi_wire_write_all(pmi_fd, line, strlen(line)) == 0);
}

/* Block until the next reply line and parse it. */
static void recv_reply(void)
{
    for (;;) {
        int rc = pmi_linebuf_next(&inbuf, reply_line, sizeof reply_line);
        CHECK(rc >= 0);
        if (rc == 1)
            break;
        long n = pmi_linebuf_fill(&inbuf, pmi_fd);
        CHECK(n > 0);
    }
    reply_n = pmi_wire_parse(reply_line, reply_kv, PMI_WIRE_MAX_WORDS);
    CHECK(reply_n > 0);
}

static const char *field(const char *key)
{
    const char *v = pmi_wire_find(reply_kv, reply_n, key);
    if (!v) {
        fprintf(stderr, "rank %d: reply has no %s=\n", rank, key);
        exit(1);
    }
    return v;
}

/* Send one request; check the reply's cmd and rc. */
static void request(const char *line, const char *want_cmd, int want_rc)
{
    send_line(line);
    recv_reply();
    if (strcmp(field("cmd"), want_cmd) != 0) {
        fprintf(stderr, "rank %d: sent '%.60s': reply cmd=%s, expected %s\n", rank, line,
                field("cmd"), want_cmd);
        exit(1);
    }
    if (want_rc != 99)
        CHECK_EQ_INT(atoi(field("rc")), want_rc);
}

static void expect_field(const char *key, const char *want)
{
    if (strcmp(field(key), want) != 0) {
        fprintf(stderr, "rank %d: %s=%s, expected %s\n", rank, key, field(key), want);
        exit(1);
    }
}

static char kvsname[300]; /* kvsname_max is 256 */

static void put(const char *key, const char *value, int want_rc, const char *want_msg)
{
    static char line[3 * PMI_WIRE_LINE_MAX];
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=%s value=%s\n", kvsname, key, value);
    request(line, "put_result", want_rc);
    if (want_msg)
        expect_field("msg", want_msg);
}

/* get key; returns the value (static) or NULL when rc != 0. */
static const char *get(const char *key)
{
    static char line[2 * PMI_WIRE_LINE_MAX];
    snprintf(line, sizeof line, "cmd=get kvsname=%s key=%s\n", kvsname, key);
    request(line, "get_result", 99);
    return atoi(field("rc")) == 0 ? field("value") : NULL;
}

static void barrier(void)
{
    send_line("cmd=barrier_in\n");
    recv_reply();
    expect_field("cmd", "barrier_out");
}

static void init(void)
{
    const char *s = getenv("PMI_FD");
    CHECK(s && getenv("PMI_RANK") && getenv("PMI_SIZE"));
    pmi_fd = atoi(s);
    rank = atoi(getenv("PMI_RANK"));
    size = atoi(getenv("PMI_SIZE"));
    testutil_rank = rank;
    request("cmd=init pmi_version=1 pmi_subversion=1\n", "response_to_init", 0);
    expect_field("pmi_version", "1");
    request("cmd=get_my_kvsname\n", "my_kvsname", 0);
    snprintf(kvsname, sizeof kvsname, "%s", field("kvsname"));
}

/* The longest allowed key (63 bytes) that belongs to rank r. */
static void max_key(char key[80], int r)
{
    int n = snprintf(key, 80, "k%d-", r);
    memset(key + n, '0', (size_t)(63 - n));
    key[63] = '\0';
}

static void basic(void)
{
    char buf[1024], key[80], val[1100];
    request("cmd=get_maxes\n", "maxes", 0);
    expect_field("kvsname_max", "256");
    expect_field("keylen_max", "64");
    expect_field("vallen_max", "1024");
    request("cmd=get_appnum\n", "appnum", 0);
    expect_field("appnum", "0");
    request("cmd=get_universe_size\n", "universe_size", 0);
    snprintf(buf, sizeof buf, "%d", size);
    expect_field("size", buf);
    CHECK(strncmp(kvsname, "skiff_", 6) == 0);
    /* no digits of the job key in the kvsname (it is seen in clear) */
    const char *job_key = getenv("SKIFF_JOB_KEY");
    CHECK(job_key && strlen(kvsname) >= 14 && strncmp(kvsname + 6, job_key, 8) != 0);

    /* Every rank publishes an escaped value; everyone reads all after the barrier. */
    snprintf(key, sizeof key, "addr-%d", rank);
    snprintf(val, sizeof val, "rank%%20%d%%3Dx", rank);
    put(key, val, 0, NULL);
    put(key, val, 0, NULL); /* the owner may write its key again */
    /* Bounds: 63-byte key and 1023-byte value fit, one more does not. */
    max_key(key, rank);
    memset(val, 'v', 1023);
    val[1023] = '\0';
    put(key, val, 0, NULL);
    char longkey[96];
    snprintf(longkey, sizeof longkey, "%sX", key);
    put(longkey, "1", -1, "key_too_long");
    val[1023] = 'v';
    val[1024] = '\0';
    put("toolong", val, -1, "value_too_long");
    snprintf(buf, sizeof buf, "cmd=put kvsname=wrong_%s key=a value=b\n", kvsname);
    request(buf, "put_result", -1);
    expect_field("msg", "unknown_kvsname");
    put("PMI_process_mapping", "x", -1, "duplicate_key");
    barrier();

    for (int r = 0; r < size; r++) {
        snprintf(key, sizeof key, "addr-%d", r);
        snprintf(val, sizeof val, "rank%%20%d%%3Dx", r);
        const char *v = get(key);
        CHECK(v && strcmp(v, val) == 0);
        if (r != rank) /* somebody else's key cannot be taken over */
            put(key, "mine", -1, "duplicate_key");
    }
    max_key(key, (rank + 1) % size);
    const char *v = get(key);
    CHECK(v && strlen(v) == 1023);
    CHECK(get("no-such-key") == NULL);
    expect_field("msg", "key_not_found");
    v = get("PMI_process_mapping");
    snprintf(buf, sizeof buf, "(vector,(0,1,%d))", size);
    CHECK(v && strcmp(v, buf) == 0);
    barrier();
}

/* Broken lines each get an error reply; the connection keeps working. */
static void malformed(void)
{
    char big[6000];
    request("garbage\n", "error", -1);
    expect_field("msg", "malformed_line");
    request("foo=bar\n", "error", -1);
    expect_field("msg", "missing_cmd");
    request("cmd=frobnicate a=b\n", "error", -1);
    expect_field("msg", "unknown_command");
    request("cmd=\x01\x7f\n", "error", -1);
    memset(big, 'a', sizeof big - 2);
    big[sizeof big - 2] = '\n';
    big[sizeof big - 1] = '\0';
    request(big, "error", -1);
    expect_field("msg", "line_too_long");
    request("cmd=get_maxes\n", "maxes", 0);
    request("cmd=get kvsname=x\n", "get_result", -1); /* wrong kvsname, no key */
    request("cmd=init pmi_version=2\n", "response_to_init", -1);
    request("\n" "cmd=get_appnum\n", "appnum", 0); /* a blank line is ignored */
}

int main(int argc, char **argv)
{
    CHECK(argc >= 2);
    const char *mode = argv[1];
    if (strcmp(mode, "leave") == 0 && atoi(getenv("PMI_RANK")) == 0)
        return 0;
    init();
    if (strcmp(mode, "basic") == 0) {
        basic();
    } else if (strcmp(mode, "malformed") == 0) {
        if (rank == 0)
            malformed();
        basic();
    } else if (strcmp(mode, "abort") == 0) {
        CHECK(argc >= 3);
        if (rank == atoi(argv[2])) {
            send_line("cmd=abort exitcode=5 msg=boom%20here\n");
            pause(); /* the launcher ends us */
        }
        barrier(); /* never released: the job is aborted */
        return 3;
    } else if (strcmp(mode, "leave") == 0) {
        barrier();
        return 3;
    } else {
        fprintf(stderr, "pmi_raw_client: unknown mode %s\n", mode);
        return 2;
    }
    request("cmd=finalize\n", "finalize_ack", 99);
    printf("pmi ok rank %d of %d\n", rank, size);
    return 0;
}
