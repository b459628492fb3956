package fanouteval

import (
	"time"

	"github.com/deltaq/deltaq/internal/bounds"
)

// Config is eval.fanout in configs/default.yaml.
type Config struct {
	// Shards is S, the indexes the pages are split over.
	Shards int `mapstructure:"shards"`
	// Week is the archive week indexed.
	Week int `mapstructure:"week"`
	// MaxQueries caps the queries asked (a seeded sample); 0 = all.
	MaxQueries int `mapstructure:"max_queries"`
	// Seed seeds the sample.
	Seed uint64 `mapstructure:"seed"`
	// Depth is the top-k compared.
	Depth int `mapstructure:"depth"`
	// Timeout bounds each shard's answer to each round.
	Timeout time.Duration `mapstructure:"timeout"`
	// StaleWeeks > 0 adds the periodic exchange's case: statistics
	// published at Week, pages searched StaleWeeks weeks later.
	StaleWeeks int `mapstructure:"stale_weeks"`
}

// Upper bounds; Run checks week and week + stale_weeks against the
// archives' own weeks.
const (
	// maxWeek is the last week an archive can hold (eval/archive keeps
	// weeks in 16 bits): it bounds week and stale_weeks, so their sum
	// cannot overflow.
	maxWeek = 1<<16 - 1
	// maxMaxQueries is far above any query log's queries; a cap at or
	// above the log asks every query, as 0 does.
	maxMaxQueries = 10_000_000
)

// Validate reports every problem, each naming its key.
func (c Config) Validate() error {
	report := bounds.NewReport("eval.fanout.")
	report.Add("shards", c.Shards, bounds.Within(c.Shards, 1, 64))
	report.Add("week", c.Week, bounds.Within(c.Week, 0, maxWeek))
	report.Add("max_queries", c.MaxQueries, bounds.Note(bounds.Within(c.MaxQueries, 0, maxMaxQueries), "(0 = all)"))
	report.Add("depth", c.Depth, bounds.Within(c.Depth, 1, 1000))
	report.Add("stale_weeks", c.StaleWeeks, bounds.Note(bounds.Within(c.StaleWeeks, 0, maxWeek), "(0 = off)"))
	if c.Timeout <= 0 {
		report.Add("timeout", c.Timeout, "must be > 0")
	}
	return report.Err()
}
