package archive

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// maxWeeks bounds the number of weeks: interval bounds are kept in 16 bits.
const maxWeeks = 1 << 16

// Meta is the content of archive.json: what the archive is, where it came
// from, its weeks and the statistics recorded when it was built.
type Meta struct {
	Name        string // short name, e.g. "tldr-en"; replay serves it as <Name>.test
	Description string
	SourceRepo  string // URL of the source repository
	License     string
	Attribution string // keep with any copy or derivative of the archive
	Weeks       []WeekInfo
	Stats       Stats
}

// WeekInfo describes one weekly snapshot.
type WeekInfo struct {
	Week   int
	Date   time.Time // 00:00 UTC of the snapshot's date
	Commit string    // source commit the week was built from
}

// Stats holds the statistics of archive.json's "stats" object. The series
// are indexed by week; the change series are 0 at week 0. Raw keeps the
// whole object (graph summaries, histograms) for readers that need more.
type Stats struct {
	URLs                    int       `json:"urls"`
	Intervals               int       `json:"intervals"`
	DistinctBodies          int       `json:"distinct_bodies"`
	URLsEverChanged         int       `json:"urls_ever_changed"`
	URLsPresentAllWeeks     int       `json:"urls_present_all_weeks"`
	BlobsBytesUncompressed  int64     `json:"blobs_bytes_uncompressed"`
	PagesPerWeek            []int     `json:"pages_per_week"`
	CreatedSeries           []int     `json:"created_series"`
	ChangedSeries           []int     `json:"changed_series"`
	DeletedSeries           []int     `json:"deleted_series"`
	ReachableFractionSeries []float64 `json:"reachable_fraction_series"`

	Raw json.RawMessage `json:"-"`
}

// metaFile mirrors archive.json on disk.
type metaFile struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	SourceRepo  string          `json:"source_repo"`
	License     string          `json:"license"`
	Attribution string          `json:"attribution"`
	StartDate   string          `json:"start_date"`
	EndDate     string          `json:"end_date"`
	Weeks       []weekFile      `json:"weeks"`
	Stats       json.RawMessage `json:"stats"`
}

type weekFile struct {
	Week   int    `json:"week"`
	Date   string `json:"date"`
	Commit string `json:"commit"`
}

const dateLayout = "2006-01-02"

// parseMeta decodes and checks archive.json.
func parseMeta(data []byte) (Meta, error) {
	var f metaFile
	if err := json.Unmarshal(data, &f); err != nil {
		return Meta{}, corruptf("%w", err)
	}
	m := Meta{
		Name:        f.Name,
		Description: f.Description,
		SourceRepo:  f.SourceRepo,
		License:     f.License,
		Attribution: f.Attribution,
	}
	if m.Name == "" {
		return Meta{}, corruptf(`"name" is missing or empty`)
	}
	if len(f.Weeks) == 0 || len(f.Weeks) > maxWeeks {
		return Meta{}, corruptf(`"weeks" has %d entries: must be in [1, %d]`, len(f.Weeks), maxWeeks)
	}
	m.Weeks = make([]WeekInfo, len(f.Weeks))
	for i, w := range f.Weeks {
		if w.Week != i {
			return Meta{}, corruptf(`"weeks"[%d] has week %d: must be %d`, i, w.Week, i)
		}
		d, err := time.Parse(dateLayout, w.Date)
		if err != nil {
			return Meta{}, corruptf(`"weeks"[%d] date %q: %w`, i, w.Date, err)
		}
		if i > 0 && !d.After(m.Weeks[i-1].Date) {
			return Meta{}, corruptf(`"weeks"[%d] date %s is not after week %d's %s`, i, w.Date, i-1, f.Weeks[i-1].Date)
		}
		m.Weeks[i] = WeekInfo{Week: i, Date: d, Commit: w.Commit}
	}
	if raw := bytes.TrimSpace(f.Stats); len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		if err := json.Unmarshal(raw, &m.Stats); err != nil {
			return Meta{}, corruptf(`"stats": %w`, err)
		}
		m.Stats.Raw = slices.Clone(raw)
	}
	return m, nil
}

// clone returns a copy of m that shares nothing mutable with it.
func (m Meta) clone() Meta {
	m.Weeks = slices.Clone(m.Weeks)
	s := &m.Stats
	s.PagesPerWeek = slices.Clone(s.PagesPerWeek)
	s.CreatedSeries = slices.Clone(s.CreatedSeries)
	s.ChangedSeries = slices.Clone(s.ChangedSeries)
	s.DeletedSeries = slices.Clone(s.DeletedSeries)
	s.ReachableFractionSeries = slices.Clone(s.ReachableFractionSeries)
	s.Raw = slices.Clone(s.Raw)
	return m
}

// String names the archive for logs and errors.
func (m Meta) String() string {
	if len(m.Weeks) == 0 {
		return m.Name
	}
	return fmt.Sprintf("%s (%d weeks, %s to %s)", m.Name, len(m.Weeks),
		m.Weeks[0].Date.Format(dateLayout), m.Weeks[len(m.Weeks)-1].Date.Format(dateLayout))
}
