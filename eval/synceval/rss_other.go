//go:build !linux

package synceval

// maxRSS is not reported on this system.
func maxRSS() int64 { return 0 }
