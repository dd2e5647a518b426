# txn.awk: transaction K of the soak workload, shaped like what ovn-northd
# writes to the Southbound database.
#
#   awk -f txn.awk -v seed=S -v k=K -v next_seq=N -v first_seq=F \
#       -v target=T -v ports=P
#
# The logical flows alive are those with first_seq <= seq < next_seq.
# Prints two lines: the new "next_seq first_seq", then the transaction (an
# OVSDB "transact" params array).  The same arguments give the same output.
#
# Transaction 0 inserts P port bindings.  Later ones, drawn from the seeded
# generator:
#   - while more than T flows are alive, often a delete of the oldest ones,
#     so that the database settles at about T flows;
#   - an insert of a batch of flows, from 1 to 400 (log-uniform: mostly
#     small, sometimes large), each with a match and actions of random
#     length;
#   - an update of the actions of every flow of one datapath, or of every
#     flow: a small transaction whose update is up to several MB;
#   - an update of a few port bindings (chassis, up).
# A transaction stays under 120,000 bytes, so that it fits in one command
# line argument.

function rnd_int(lo, hi) {
    return lo + int(rand() * (hi - lo + 1))
}

function word(len,    s, i) {
    s = ""
    for (i = 0; i < len; i++) {
        s = s substr(ALPHA, rnd_int(1, length(ALPHA)), 1)
    }
    return s
}

function flow_row(seq,    dp) {
    dp = seq % 16
    return sprintf("{\"op\":\"insert\",\"table\":\"Logical_Flow\",\"row\":" \
                   "{\"seq\":%d,\"logical_datapath\":%d,\"pipeline\":\"%s\"," \
                   "\"table_id\":%d,\"priority\":%d," \
                   "\"match\":\"inport == \\\"lsp-%d\\\" && %s\"," \
                   "\"actions\":\"%s; next;\"," \
                   "\"external_ids\":[\"map\",[[\"stage-name\",\"%s\"]]]}}",
                   seq, dp, (seq % 2) ? "egress" : "ingress",
                   seq % 30, rnd_int(0, 65535), seq % ports,
                   word(rnd_int(10, 120)), word(rnd_int(5, 80)),
                   word(rnd_int(4, 20)))
}

BEGIN {
    ALPHA = "abcdefghijklmnopqrstuvwxyz0123456789._"
    srand(seed * 1000003 + k)
    live = next_seq - first_seq
    ops = ""
    if (k == 0) {
        for (i = 0; i < ports; i++) {
            ops = ops (i ? "," : "") \
                sprintf("{\"op\":\"insert\",\"table\":\"Port_Binding\"," \
                        "\"row\":{\"logical_port\":\"lsp-%d\"," \
                        "\"datapath\":%d,\"chassis\":\"\",\"up\":false," \
                        "\"mac\":\"00:00:00:00:%02x:%02x\"}}",
                        i, i % 16, int(i / 256) % 256, i % 256)
        }
    } else {
        r = rand()
        if (live > target && r < 0.3) {
            n = live - target + rnd_int(0, int(target / 10))
            if (n > live) {
                n = live
            }
            ops = sprintf("{\"op\":\"delete\",\"table\":\"Logical_Flow\"," \
                          "\"where\":[[\"seq\",\"<\",%d]]}", first_seq + n)
            first_seq += n
        } else if (r < 0.6) {
            n = int(exp(rand() * log(400))) + 1
            for (i = 0; i < n && length(ops) < 110000; i++) {
                ops = ops (i ? "," : "") flow_row(next_seq)
                next_seq++
            }
        } else if (r < 0.8 && live > 0) {
            where = sprintf("[\"seq\",\">=\",%d]", first_seq)
            if (rand() < 0.7) {
                where = where sprintf(",[\"logical_datapath\",\"==\",%d]",
                                      rnd_int(0, 15))
            }
            ops = sprintf("{\"op\":\"update\",\"table\":\"Logical_Flow\"," \
                          "\"where\":[%s],\"row\":{\"actions\":\"%s\"}}",
                          where, word(rnd_int(20, 600)))
        } else {
            n = rnd_int(1, 20)
            for (i = 0; i < n; i++) {
                ops = ops (i ? "," : "") \
                    sprintf("{\"op\":\"update\",\"table\":\"Port_Binding\"," \
                            "\"where\":[[\"logical_port\",\"==\",\"lsp-%d\"]]," \
                            "\"row\":{\"chassis\":\"ch-%d\",\"up\":%s}}",
                            rnd_int(0, ports - 1), rnd_int(0, 99),
                            rand() < 0.5 ? "true" : "false")
            }
        }
    }
    print next_seq, first_seq
    print "[\"Soak_Southbound\"" (ops == "" ? "" : "," ops) "]"
}
