package web

import (
	"fmt"
	"time"

	"github.com/deltaq/deltaq/internal/bounds"
	"github.com/deltaq/deltaq/internal/hostport"
	"github.com/deltaq/deltaq/internal/httpserver"
)

// Config holds the server's settings; defaults live in
// configs/default.yaml under "server".
type Config struct {
	Listen        string            `mapstructure:"listen"`
	Admin         AdminConfig       `mapstructure:"admin"`
	HTTP          httpserver.Config `mapstructure:"http"`
	SearchTimeout time.Duration     `mapstructure:"search_timeout"`
	// MaxQueryBytes is index.max_query_bytes, the one query length limit;
	// the configuration loader copies it here.
	MaxQueryBytes int `mapstructure:"-"`
	MaxSize       int `mapstructure:"max_size"`
	DefaultSize   int `mapstructure:"default_size"`
	// Candidates is ranking.candidates, copied by the configuration
	// loader: the ranking orders no more results than that, so it is the
	// deepest page (at size 1), and no page size may exceed it.
	Candidates int `mapstructure:"-"`
}

// AdminConfig is the operator's listener.
type AdminConfig struct {
	// Listen is where /metrics, the page report and the explain view are
	// served instead of on server.listen, the feed subscriptions changed,
	// backups taken, seeds given and watch API keys made and revoked; ""
	// serves the first three on server.listen, and the rest nowhere.
	Listen string `mapstructure:"listen"`
}

// Validate reports every problem in c, each naming its key.
func (c Config) Validate() error {
	report := bounds.NewReport("server.")
	if _, _, err := hostport.Split(c.Listen); err != nil {
		report.Add("listen", fmt.Sprintf("%q", c.Listen), "must be "+hostport.Rule+": "+err.Error())
	}
	if c.Admin.Listen != "" {
		if _, port, err := hostport.Split(c.Admin.Listen); err != nil {
			report.Add("admin.listen", fmt.Sprintf("%q", c.Admin.Listen), "must be "+hostport.Rule+`, or "" for no admin listener: `+err.Error())
		} else if c.Admin.Listen == c.Listen && port != 0 { // port 0: each listener gets a free port of its own
			report.Add("admin.listen", fmt.Sprintf("%q", c.Admin.Listen), "must differ from server.listen")
		}
	}
	if c.SearchTimeout <= 0 {
		report.Add("search_timeout", c.SearchTimeout, "must be > 0")
	}
	if c.MaxQueryBytes < 1 {
		report.Include(fmt.Errorf("index.max_query_bytes = %d: must be >= 1", c.MaxQueryBytes))
	}
	if c.MaxSize < 1 {
		report.Add("max_size", c.MaxSize, "must be >= 1")
	}
	if c.MaxSize > c.Candidates {
		report.Add("max_size", c.MaxSize, fmt.Sprintf("must be <= ranking.candidates (%d), the results a search orders", c.Candidates))
	}
	if c.DefaultSize < 1 || c.DefaultSize > c.MaxSize {
		report.Add("default_size", c.DefaultSize, "must be in [1, server.max_size]")
	}
	report.Include(c.HTTP.Validate("server.http."))
	return report.Err()
}
