package ranksim

import "github.com/deltaq/deltaq/internal/bounds"

// Config holds the evaluation's settings; defaults live in
// configs/default.yaml under "eval.ranking".
type Config struct {
	// Seed makes the run reproducible: the same seed gives the same report,
	// byte for byte.
	Seed uint64 `mapstructure:"seed"`
	// Quick runs a scaled-down community and fewer points (for tests and a
	// first look); the full set reproduces §5.7–5.9.
	Quick bool `mapstructure:"quick"`
	// Workers is how many simulations run at once; 0 means one per CPU.
	Workers int `mapstructure:"workers"`
}

// MaxWorkers bounds eval.ranking.workers.
const MaxWorkers = 256

// Validate reports every problem in c, each naming its key.
func (c Config) Validate() error {
	report := bounds.NewReport("eval.ranking.")
	report.Add("workers", c.Workers, bounds.Within(c.Workers, 0, MaxWorkers))
	return report.Err()
}
