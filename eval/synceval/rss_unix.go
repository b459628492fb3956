//go:build linux

package synceval

import "syscall"

// maxRSS is the process's peak resident set size in bytes (getrusage:
// ru_maxrss, in KiB on Linux).
func maxRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss * 1024
}
