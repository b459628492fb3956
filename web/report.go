package web

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// maxTextLinks bounds the links listed by WriteText; the JSON has them all.
const maxTextLinks = 20

// FetchStatus says how the page's last fetch attempt ended, with its HTTP
// status, or that there was none.
func (r *PageReport) FetchStatus() string {
	if r.LastOutcome == "" {
		return "never fetched"
	}
	status := "last fetch: " + r.LastOutcome
	if r.HTTPStatus != 0 {
		status += fmt.Sprintf(", HTTP %d", r.HTTPStatus)
	}
	return status
}

// WriteText writes the report for a terminal: one section per part, names
// for enums, times in UTC, durations in milliseconds.
func (r *PageReport) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(format string, args ...any) { fmt.Fprintf(tw, format+"\n", args...) }
	line("%s", r.URL)
	line("  state\t%s (%s)", r.State, r.FetchStatus())
	if r.Title != "" {
		line("  title\t%s", r.Title)
	}
	line("  first seen\t%s (depth %d%s)", stamp(r.FirstSeen), r.Depth, via(r.Source))
	line("  last fetch\t%s (%d fetches, %d changes; last change %s)", stampPtr(r.LastFetch), r.Fetches, r.Changes, stampPtr(r.LastChange))
	if r.ContentType != "" {
		line("  content type\t%s", r.ContentType)
	}
	if r.ETag != "" || r.LastModified != "" {
		line("  validators\tETag %q, Last-Modified %q", r.ETag, r.LastModified)
	}
	if r.NoIndex {
		line("  noindex\tyes: not in the search index")
	}
	if r.RedirectTo != "" {
		line("  redirects to\t%s", r.RedirectTo)
	}
	if rc := r.Recrawl; rc != nil {
		line("")
		source := "recorded by the last crawl"
		if rc.PolicySource != "repository" {
			source = "configured; no crawl recorded one"
		}
		line("recrawl\t(policy %s, %s)", rc.Policy, source)
		if rc.Measured {
			line("  δQ_A\t%.4g per period of %s, the mean over %d re-downloads (window %d)", rc.DeltaQRate, rc.Period, rc.Samples, rc.Window)
			line("  priority\t%.4g = δQ_A·(t − LR), LR = %s", *rc.Priority, stampPtr(rc.LastFetch))
		} else {
			line("  δQ_A\tnot measured yet")
		}
		if p := rc.Posterior; p != nil {
			line("  E[ΔQ_A] now\t%.4g = changes %.3g × impact %.4g (change rate %.3g per period, stake %.4g)",
				p.ExpectedGain, p.Changes, p.Impact, p.ChangeRate, p.Stake)
		}
		line("  why\t%s", rc.Why)
	}
	line("")
	line("fetch history\t(%d, oldest first)", len(r.History))
	for _, f := range r.History {
		what := f.Outcome
		if f.HTTPStatus != 0 {
			what += fmt.Sprintf(" %d", f.HTTPStatus)
		}
		change := "unchanged"
		if f.Changed {
			change = "changed"
		}
		if f.Difference != nil {
			change += fmt.Sprintf(" (shingle difference %.3f)", *f.Difference)
		}
		line("  %s\t%s\t%s\t%d B\t%.1f ms\t%s", stamp(f.At), f.Reason, what, f.Bytes, f.TookMS, change)
	}
	line("")
	line("ΔQ_A measurements\t(%d)", len(r.DeltaQ))
	for _, m := range r.DeltaQ {
		line("  %s\tΔQ_A %.4g over %d terms, since the fetch of %s", stamp(m.At), m.Value, m.Terms, stamp(m.LastFetch))
	}
	line("")
	line("versions\t(%d)", len(r.Versions))
	for _, v := range r.Versions {
		line("  %s\t%s\t%s", stamp(v.FetchedAt), v.ContentType, v.Title)
	}
	line("")
	line("links out\t(%d)", len(r.LinksOut))
	for i, l := range r.LinksOut {
		if i == maxTextLinks {
			line("  …\t%d more (--json lists them all)", len(r.LinksOut)-i)
			break
		}
		line("  %s\t%s", l.Kind, l.URL)
	}
	line("links in\t(%d)", len(r.LinksIn))
	for i, l := range r.LinksIn {
		if i == maxTextLinks {
			line("  …\t%d more (--json lists them all)", len(r.LinksIn)-i)
			break
		}
		line("  %s", l)
	}
	return tw.Flush()
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

func stampPtr(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return stamp(*t)
}

func via(source string) string {
	if source == "" {
		return ", a seed"
	}
	return ", found on " + strings.TrimSpace(source)
}
