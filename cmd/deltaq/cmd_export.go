package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/internal/atomicfile"
	"github.com/deltaq/deltaq/internal/warc"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/web"
)

func (a *app) newExportCmd() *cobra.Command {
	var dataDir, out, format string
	var force bool
	cmd := &cobra.Command{
		Use:   "export --data DIR --out FILE [--format warc|jsonl] [--force]",
		Short: "Export the repository: every stored page version as WARC, or every page record as JSON lines",
		Long: `export writes, with --format warc, a WARC 1.1 file with one response record
(status 200, Content-Type, body) per stored version of every page, oldest
first; with --format jsonl, one JSON object per page, the page report of
/api/v1/page: state, last outcome, times, counts, validators, fetch
history, versions, links and ΔQ_A measurements. A --out ending in .gz
(in any case) is compressed: a WARC record by record (a gzip member each, as .warc.gz
readers expect), JSON lines as one gzip stream.

--out must lie outside the data directory, whose files export reads, and
must not exist yet; --force replaces an existing file. The export is
written to a hidden temporary file beside --out and renamed into place
once complete, so a failed or interrupted export leaves no partial file
at --out. A failed export removes its temporary; one killed (kill -9, a
crash) leaves it, and the next export to the same --out removes it.
A new --out gets 0666 less the umask; one replaced keeps its mode.
--out - writes the export to standard output instead, and the summary
line to standard error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, db, _, err := a.loadCrawledRepo(cmd, dataDir, func(*configs.Config) error {
				if format != "warc" && format != "jsonl" {
					return fmt.Errorf("--format = %q: must be warc or jsonl", format)
				}
				return checkExportOut(out, dataDir, force)
			})
			if err != nil {
				return err
			}
			defer db.Close()
			// A name ending in .gz, .GZ or any mix is compressed.
			e := &exporter{db: db, format: format, gz: strings.HasSuffix(strings.ToLower(out), ".gz")}
			write := func(w io.Writer) error { return e.write(cmd.Context(), w) }
			// "-" is standard output; the summary then goes to stderr so
			// that stdout holds only the export.
			summary := a.stdout
			if out == "-" {
				summary = a.stderr
				err = write(a.stdout)
			} else {
				err = atomicfile.Write(out, write)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(summary, "exported %d pages, %d versions as %s to %s\n", e.pages, e.versions, format, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data", "", "data directory")
	cmd.Flags().StringVar(&out, "out", "", "output file; - writes to standard output (the summary then goes to stderr)")
	cmd.Flags().StringVar(&format, "format", "warc", "warc (page versions) or jsonl (page records)")
	cmd.Flags().BoolVar(&force, "force", false, "replace --out if it exists")
	return cmd
}

// exporter writes every page of a repository in one format, counting
// what it wrote for the summary.
type exporter struct {
	db              *repo.DB
	format          string // warc or jsonl
	gz              bool   // compressed: a WARC record by record (.warc.gz), JSON lines as one stream
	pages, versions int
}

// write writes the export to w: with warc, an info record and a response
// record per stored version, oldest first; with jsonl, each page's report.
func (e *exporter) write(ctx context.Context, w io.Writer) error {
	bw := bufio.NewWriter(w)
	ww, lines := warc.NewWriter(bw), io.Writer(bw)
	if e.gz && e.format == "warc" {
		ww = warc.NewGzipWriter(bw)
	}
	var zw *gzip.Writer
	if e.gz && e.format == "jsonl" {
		zw = gzip.NewWriter(bw)
		lines = zw
	}
	enc := json.NewEncoder(lines)
	if e.format == "warc" {
		if err := ww.Info(time.Now(), "deltaq export"); err != nil {
			return err
		}
	}
	for p, err := range e.db.Pages(ctx) {
		if err != nil {
			return err
		}
		e.pages++
		if e.format == "jsonl" {
			rep, err := web.BuildPageReport(ctx, e.db, nil, p.URL)
			if err != nil {
				return err
			}
			e.versions += len(rep.Versions)
			if err := enc.Encode(rep); err != nil {
				return fmt.Errorf("export %s: %w", p.URL, err)
			}
			continue
		}
		vs, err := e.db.Versions(ctx, p.URL, true)
		if err != nil {
			return err
		}
		slices.Reverse(vs) // oldest first
		e.versions += len(vs)
		for _, v := range vs {
			// A version is stored for content the crawl accepted: a 2xx.
			if err := ww.Response(p.URL, v.FetchedAt, 200, v.ContentType, v.Body); err != nil {
				return err
			}
		}
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// checkExportOut refuses an --out whose writing would destroy data. The
// rename that ends an export replaces whatever file is at out, so out must
// not be a file of the repository or the index (or anything else in the
// data directory, however it is reached through symbolic links), nor a
// device, pipe or socket, nor an existing file unless force.
func checkExportOut(out, dataDir string, force bool) error {
	if out == "-" {
		return nil
	}
	if out == "" {
		return errors.New("--out: an output file is required")
	}
	if _, err := realPath(filepath.Dir(out)); err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	if inData(dataDir, out) {
		return fmt.Errorf("--out %s: inside the data directory %s, whose repository and index it would overwrite; give a path outside it", out, dataDir)
	}
	switch fi, err := os.Lstat(out); {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("--out %s: %w", out, err)
	case fi.IsDir():
		return fmt.Errorf("--out %s: is a directory; give a file name", out)
	case !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0:
		// The rename would put a plain file where a device or a pipe was.
		return fmt.Errorf("--out %s: is not a regular file (%s), which the export would replace, --force or not; give a file name, or - for standard output", out, fi.Mode().Type())
	case !force:
		return fmt.Errorf("--out %s: already exists; give --force to replace it", out)
	}
	return nil
}
