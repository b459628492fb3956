package relationeval

import (
	"fmt"
	"time"
)

// Summary is what a run reports to its caller beside the files.
type Summary struct {
	Mode    string
	OutDir  string
	Elapsed time.Duration
	Targets []Target
}

// Target is one result the issue asks the run to show.
type Target struct {
	Name     string
	Met      bool
	Measured string
}

func target(name string, met bool, format string, args ...any) Target {
	return Target{Name: name, Met: met, Measured: fmt.Sprintf(format, args...)}
}

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "NOT met"
}
