package crawler

import (
	"syscall"
	"testing"
	"time"
)

// ProcessCPU is the user and system CPU time the test process has used:
// the benchmarks' cost per page and per request, which a loaded machine
// distorts less than wall time.
func ProcessCPU(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
