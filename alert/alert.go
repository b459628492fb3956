package alert

import (
	"fmt"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/internal/bounds"
	"github.com/deltaq/deltaq/notify"
)

// Config bounds alerts. Defaults live in configs/default.yaml (alert).
type Config struct {
	// MaxAlerts is the most alerts kept (all are held in memory).
	MaxAlerts int `mapstructure:"max_alerts"`
	// SnippetBytes is the length of the snippet a notification carries.
	SnippetBytes int `mapstructure:"snippet_bytes"`
}

// FullError is an alert refused because the server holds its most
// alerts (alert.max_alerts, all of them in memory): a limit of the
// server, not of the user's key.
type FullError struct{ Alerts, Max int }

func (e *FullError) Error() string {
	return fmt.Sprintf("alert: %d alerts with the new ones: over alert.max_alerts = %d", e.Alerts, e.Max)
}

// Upper bounds of the settings.
const (
	// Alerts are held in memory, about 200 bytes each, and packed reaches
	// their slots, clauses and records through uint32 offsets: the
	// records' 4 GiB allow 429 bytes an alert at this bound.
	maxAlerts = 10000000
	// Every notification carries a snippet this long, and cutting one
	// adds it to offsets into the page text.
	maxSnippetBytes = 1 << 16
)

// Validate reports every value out of range, naming its key.
func (c Config) Validate() error {
	report := bounds.NewReport("alert.")
	report.Add("max_alerts", c.MaxAlerts, bounds.Positive(c.MaxAlerts, maxAlerts))
	report.Add("snippet_bytes", c.SnippetBytes, bounds.Positive(c.SnippetBytes, maxSnippetBytes))
	return report.Err()
}

// Alert is a standing query.
type Alert struct {
	ID     string          `json:"id"`
	User   string          `json:"user,omitempty"`
	Query  string          `json:"query"`
	Notify []notify.Target `json:"notify,omitempty"`
	// EveryChange notifies every indexed change of a matching page. By
	// default a page is notified once, the first time it matches (new, or
	// changed so that it now matches): a home or tag page that changes
	// daily would otherwise notify daily. Watches follow a page's changes.
	EveryChange bool `json:"every_change,omitempty"`
	// Created is when the alert was added; it matches copies fetched
	// then or later.
	Created time.Time `json:"created"`
}

// word is one analyzed word of a phrase and its offset from the phrase's
// first word (stop words leave gaps, as in the index).
type word struct {
	term string
	off  int
}

// clause is a term (all its words, anywhere) or a phrase (its words at
// their offsets).
type clause struct {
	words  []word
	phrase bool
}

// compiled is an alert parsed and analyzed, before packed stores it.
type compiled struct {
	a                  *Alert
	required, excluded []clause
	sites, notSites    []string
}

func analyze(an analysis.Analyzer, s string, phrase bool) clause {
	c := clause{phrase: phrase}
	first := -1
	for _, t := range an.Analyze([]byte(s)) {
		if first < 0 {
			first = t.Position
		}
		c.words = append(c.words, word{term: string(t.Term), off: t.Position - first})
	}
	return c
}

// compile parses and analyzes an alert's query.
func compile(a *Alert, an analysis.Analyzer, lim index.Limits) (*compiled, error) {
	q, err := index.ParseQuery(a.Query, lim)
	if err != nil {
		return nil, err
	}
	c := &compiled{a: a, sites: q.Sites, notSites: q.ExcludeSites}
	add := func(list *[]clause, ss []string, phrase bool) {
		for _, s := range ss {
			if cl := analyze(an, s, phrase); len(cl.words) > 0 {
				*list = append(*list, cl)
			}
		}
	}
	add(&c.required, q.Terms, false)
	add(&c.required, q.Phrases, true)
	add(&c.excluded, q.ExcludeTerms, false)
	add(&c.excluded, q.ExcludePhrases, true)
	if len(c.required) == 0 {
		return nil, index.NoSearchableWords(a.Query, "stop words or exclusions")
	}
	return c, nil
}

func hasPosition(tf *bindex.TokenFreq, pos int) bool {
	for _, l := range tf.Locations {
		if l.Position == pos {
			return true
		}
	}
	return false
}
