package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/internal/atomicfile"
	"github.com/deltaq/deltaq/internal/warc"
)

// pageRecord is one line of a JSONL export: what the repository knows of a
// page, with the times of its stored versions.
type pageRecord struct {
	URL          string      `json:"url"`
	State        string      `json:"state"`
	LastOutcome  string      `json:"last_outcome"`
	HTTPStatus   int         `json:"http_status,omitempty"`
	Depth        int         `json:"depth"`
	Source       string      `json:"source,omitempty"`
	FirstSeen    time.Time   `json:"first_seen"`
	LastFetch    time.Time   `json:"last_fetch,omitzero"`
	LastChange   time.Time   `json:"last_change,omitzero"`
	Fetches      int         `json:"fetches"`
	Changes      int         `json:"changes"`
	Title        string      `json:"title,omitempty"`
	ContentType  string      `json:"content_type,omitempty"`
	ETag         string      `json:"etag,omitempty"`
	LastModified string      `json:"last_modified,omitempty"`
	NoIndex      bool        `json:"noindex,omitempty"`
	RedirectTo   string      `json:"redirect_to,omitempty"`
	Versions     []time.Time `json:"versions"`
}

func (a *app) newExportCmd() *cobra.Command {
	var dataDir, out, format string
	cmd := &cobra.Command{
		Use:   "export --data DIR --out FILE [--format warc|jsonl]",
		Short: "Export the repository: every stored page version as WARC, or every page record as JSON lines",
		Long: `export writes, with --format warc, a WARC 1.1 file with one response record
(status 200, Content-Type, body) per stored version of every page, oldest
first; with --format jsonl, one JSON object per page: its state, last
outcome, times, counts, validators and the times of its stored versions.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.load(cmd)
			if err != nil {
				return err
			}
			if format != "warc" && format != "jsonl" {
				return fmt.Errorf("--format = %q: must be warc or jsonl", format)
			}
			if out == "" {
				return fmt.Errorf("--out: an output file is required")
			}
			db, err := openRepo(dataDir, cfg, a.logger(cfg))
			if err != nil {
				return err
			}
			defer db.Close()
			ctx := cmd.Context()
			pages, versions := 0, 0
			err = atomicfile.Write(out, func(w io.Writer) error {
				bw := bufio.NewWriter(w)
				ww, enc := warc.NewWriter(bw), json.NewEncoder(bw)
				if format == "warc" {
					if err := ww.Info(time.Now(), "deltaq export"); err != nil {
						return err
					}
				}
				for p, err := range db.Pages(ctx) {
					if err != nil {
						return err
					}
					vs, err := db.Versions(ctx, p.URL, format == "warc")
					if err != nil {
						return err
					}
					slices.Reverse(vs) // oldest first
					pages++
					versions += len(vs)
					if format == "jsonl" {
						rec := pageRecord{URL: p.URL, State: p.State.String(), LastOutcome: p.LastOutcome.String(), HTTPStatus: p.HTTPStatus,
							Depth: p.Depth, Source: p.Source, FirstSeen: p.FirstSeen, LastFetch: p.LastFetch, LastChange: p.LastChange,
							Fetches: p.Fetches, Changes: p.Changes, Title: p.Title, ContentType: p.ContentType, ETag: p.ETag,
							LastModified: p.LastModified, NoIndex: p.NoIndex, RedirectTo: p.RedirectTo, Versions: []time.Time{}}
						for _, v := range vs {
							rec.Versions = append(rec.Versions, v.FetchedAt)
						}
						if err := enc.Encode(rec); err != nil {
							return fmt.Errorf("export %s: %w", p.URL, err)
						}
						continue
					}
					for _, v := range vs {
						// A version is stored for content the crawl accepted: a 2xx.
						if err := ww.Response(p.URL, v.FetchedAt, 200, v.ContentType, v.Body); err != nil {
							return err
						}
					}
				}
				return bw.Flush()
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "exported %d pages, %d versions as %s to %s\n", pages, versions, format, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data", "", "data directory")
	cmd.Flags().StringVar(&out, "out", "", "output file")
	cmd.Flags().StringVar(&format, "format", "warc", "warc (page versions) or jsonl (page records)")
	return cmd
}
