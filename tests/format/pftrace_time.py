"""A packet's time as Perfetto's trace processor reads it (trace-formats.md
B.3, B.7; ProtoTraceReader::TimestampTokenizeAndPushToSorter and
ClockSynchronizer): the packet's timestamp_clock_id, else its sequence's
default (TracePacketDefaults, wiped by a clear), else none: trace time
(BOOTTIME) as written. A sequence-scoped incremental clock (64..127) adds
each timestamp to its last value, which its ClockSnapshot (beside a BOOTTIME
reading) set; its times are that value moved by the snapshot's BOOTTIME
reading less its own. Any other clock fails the check: the exporters write
none."""

BOOTTIME = 6


class Clocks:
    def __init__(self):
        self.default = {}  # seq -> clock id of its defaults
        self.value = {}    # (seq, clock) -> the incremental clock's value
        self.offset = {}   # (seq, clock) -> BOOTTIME reading - the clock's, at its snapshot

    def packet(self, seq, flags=0, defaults_clock=None, snapshot=None, timestamp=None, clock=None):
        """The packet's fields (snapshot: [(clock_id, timestamp, is_incremental)]);
        returns its time in trace ns, or None when it has no timestamp."""
        if flags & 1:
            self.default.pop(seq, None)
        if defaults_clock is not None:
            self.default[seq] = defaults_clock
        if snapshot:
            boot = [t for c, t, inc in snapshot if c == BOOTTIME]
            assert len(boot) == 1, "a snapshot with one BOOTTIME reading"
            for c, t, inc in snapshot:
                if c != BOOTTIME:
                    assert 64 <= c < 128 and inc, "only sequence-scoped incremental clocks beside BOOTTIME"
                    self.value[(seq, c)] = t
                    self.offset[(seq, c)] = boot[0] - t
            return None
        if timestamp is None:
            return None  # does not move the clock
        cid = clock if clock is not None else self.default.get(seq, 0)
        if cid in (0, BOOTTIME):
            return timestamp
        assert (seq, cid) in self.value, ("clock %d used before its snapshot on sequence %d" % (cid, seq))
        self.value[(seq, cid)] += timestamp
        return self.value[(seq, cid)] + self.offset[(seq, cid)]
