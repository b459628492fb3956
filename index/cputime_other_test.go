//go:build !linux

package index

import "time"

func processCPU() time.Duration { return 0 }

func threadCPU() time.Duration { return 0 }
