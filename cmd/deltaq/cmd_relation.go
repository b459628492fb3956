package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/internal/boundedfile"
	"github.com/deltaq/deltaq/relation"
)

func (a *app) newRelationCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "relation",
		Short: "Records kept fresh through a site's keyword search (Yang et al., SIGMOD 2010)",
	}
	cmd.AddCommand(a.newRelationCreateCmd(), a.newRelationAddCmd(), a.newRelationSyncCmd(), a.newRelationListCmd(), a.newRelationShowCmd(), a.newRelationRmCmd())
	return cmd
}

func (a *app) newRelationCreateCmd() *cobra.Command {
	var (
		dataDir, openSearch, quota string
		src                        relation.Source
		def                        relation.Definition
	)
	cmd := &cobra.Command{
		Use:   "create NAME --search TEMPLATE|--opensearch URL --item TEMPLATE --extract field=css:SEL ... [--weight 1|column|field:F]",
		Short: "Declare a relation: its source's search and item URLs and the fields read from hits and item pages",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := a.load(cmd)
			if err != nil {
				return err
			}
			if openSearch != "" {
				if src.Search != "" {
					return errors.New("--search and --opensearch: give one")
				}
				client, err := sourceHTTP(cfg)
				if err != nil {
					return err
				}
				if src.Search, err = relation.ResolveOpenSearch(cmd.Context(), client, openSearch, cfg.Relation.MaxBytes); err != nil {
					return allowPrivateHint(err, "read a description")
				}
			}
			// Only a flag left out takes the configured value: a 0 given
			// is the source's check to refuse, not a default to fill in.
			if !cmd.Flags().Changed("page-size") {
				src.PageSize = cfg.Relation.PageSize
			}
			if !cmd.Flags().Changed("max-results") {
				src.MaxResults = cfg.Relation.MaxResults
			}
			src.Quota, src.QuotaPeriod = cfg.Relation.Quota, cfg.Relation.QuotaPeriod
			if quota != "" {
				if src.Quota, src.QuotaPeriod, err = parseQuota(quota); err != nil {
					return err
				}
			}
			if len(src.Keywords) == 0 && len(src.Fields) > 0 {
				// The first field's name as the source reads it, trimmed.
				first, err := relation.ParseField(src.Fields[0])
				if err != nil {
					return err
				}
				src.Keywords = []string{first.Name}
			}
			def.Name, def.Source, def.Created = args[0], src, time.Now().UTC()
			// Before the data directory is made: a refused relation leaves none.
			if err := def.Validate(); err != nil {
				return err
			}
			db, err := openRepo(dataDir, cfg, a.logger(cfg))
			if err != nil {
				return err
			}
			defer db.Close()
			if err := relation.NewStore(db).Create(cmd.Context(), def); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "relation %s created: search %s, item %s, p=%d, K=%d, fields %s, keywords from %s, weight %s, dissimilarity %s, quota %d per %v\n",
				def.Name, src.Search, src.Item, src.PageSize, src.MaxResults, strings.Join(src.Fields, " "), strings.Join(src.Keywords, ","), def.Weight, def.Dissimilarity, src.Quota, src.QuotaPeriod)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dataDir, "data", "", "data directory (repository)")
	f.StringVar(&src.Search, "search", "", "result-page URL with {q} and {page}")
	f.StringVar(&openSearch, "opensearch", "", "OpenSearch description URL (instead of --search)")
	f.StringVar(&src.Item, "item", "", "item-page URL with {id}, for fetches by ID")
	f.StringArrayVar(&src.Fields, "extract", nil, "field=css:SELECTOR[@attr] for hits and item pages, or field=HITSPEC|ITEMSPEC (header:NAME on item pages); repeatable")
	f.StringVar(&src.Hit, "hit", "li.hit", "CSS selector of one search hit")
	f.StringVar(&src.ID, "id", "css:@data-id", "where a hit's record ID is: css:SELECTOR[@attr]")
	f.StringVar(&src.Total, "total", "css:.total@data-total", "where the reported hit count is; empty if the source reports none")
	f.StringSliceVar(&src.Keywords, "keywords", nil, "fields whose words are the records' keywords (default: the first --extract field)")
	f.IntVar(&src.PageSize, "page-size", 0, "results per page p (default relation.page_size)")
	f.IntVar(&src.MaxResults, "max-results", 0, "results per query K (default relation.max_results)")
	f.StringVar(&quota, "quota", "", "requests per period, e.g. 10/5m (default relation.quota per relation.quota_period)")
	f.StringVar(&def.Weight, "weight", "1", "w(r): 1, column (the ids file's second column) or field:NAME")
	f.StringVar(&def.Dissimilarity, "dissimilarity", "changed", "changed, or abs:NAME for a numeric field")
	addDialFlags(cmd) // --opensearch is fetched
	return cmd
}

// relationClient is the client of a relation's source, fetching through
// sourceHTTP.
func relationClient(cfg *configs.Config, def relation.Definition, logger *slog.Logger) (*relation.Client, error) {
	client, err := sourceHTTP(cfg)
	if err != nil {
		return nil, err
	}
	opts := cfg.Relation.ClientOptions(cfg.Crawler.UserAgent)
	opts.Logger = logger
	opts.HTTP = client
	return relation.NewClient(def.Source, opts)
}

// allowPrivateHint adds to err, if the crawler's dialer refused an
// address, how to let it through to do what.
func allowPrivateHint(err error, what string) error {
	if !errors.Is(err, crawler.ErrRefusedAddress) {
		return err
	}
	return fmt.Errorf("%w; to %s from loopback or private addresses (your own test server), run again with --allow-private (or crawler.allow_private: true)", err, what)
}

// sourceHTTP is the HTTP client of requests to a relation's source (its
// OpenSearch description, searches, items). It dials through the
// crawler's dialer, as watches do: the same crawler.resolve mapping, and
// the same refusal of non-public addresses unless crawler.allow_private.
func sourceHTTP(cfg *configs.Config) (*http.Client, error) {
	dial, err := crawler.DialContext(cfg.Crawler)
	if err != nil {
		return nil, err
	}
	return &http.Client{Timeout: cfg.Relation.Timeout, Transport: &http.Transport{DialContext: dial}}, nil
}

// parseQuota reads N/PERIOD.
func parseQuota(s string) (int, time.Duration, error) {
	n, p, ok := strings.Cut(s, "/")
	count, err1 := strconv.Atoi(n)
	period, err2 := time.ParseDuration(p)
	if !ok || err1 != nil || err2 != nil || count < 1 || period <= 0 {
		return 0, 0, fmt.Errorf("--quota %q: want N/PERIOD with N >= 1 and a positive duration, e.g. 10/5m", s)
	}
	return count, period, nil
}

func (a *app) newRelationAddCmd() *cobra.Command {
	var dataDir, idsFile string
	cmd := &cobra.Command{
		Use:   "add NAME --ids FILE",
		Short: "Add records by ID (one a line, optionally TAB weight)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if idsFile == "" {
				return errors.New("--ids: a file of IDs is required")
			}
			text, err := boundedfile.Read(idsFile, maxIDsFileBytes, "a file of IDs")
			if err != nil {
				return fmt.Errorf("--ids: %w", err)
			}
			// The relation must exist, so the repository must: a mistyped
			// --data is refused, not created empty.
			_, db, _, err := a.loadCrawledRepo(cmd, dataDir, nil)
			if err != nil {
				return err
			}
			defer db.Close()
			st := relation.NewStore(db)
			def, err := st.Definition(args[0])
			if err != nil {
				return err
			}
			ids, weights, err := relation.ParseIDs(string(text), def.Source.CheckID)
			if err != nil {
				return fmt.Errorf("--ids %s: %w", idsFile, err)
			}
			n, err := st.Add(cmd.Context(), args[0], ids, weights)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "relation %s: %d IDs read, %d new\n", args[0], len(ids), n)
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data", "", "data directory (repository)")
	cmd.Flags().StringVar(&idsFile, "ids", "", "file of IDs")
	return cmd
}

func (a *app) newRelationRmCmd() *cobra.Command {
	var dataDir, idsFile string
	cmd := &cobra.Command{
		Use:   "rm NAME ID... | rm NAME --ids FILE",
		Short: "Remove records by ID; their changes stay in the change log",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ids := slices.Clone(args[1:])
			if idsFile != "" {
				text, err := boundedfile.Read(idsFile, maxIDsFileBytes, "a file of IDs")
				if err != nil {
					return fmt.Errorf("--ids: %w", err)
				}
				fromFile, _, err := relation.ParseIDs(string(text), nil)
				if err != nil {
					return fmt.Errorf("--ids %s: %w", idsFile, err)
				}
				ids = append(ids, fromFile...)
			}
			if len(ids) == 0 {
				return errors.New("give the IDs to remove as arguments or in --ids FILE")
			}
			slices.Sort(ids)
			ids = slices.Compact(ids)
			_, db, _, err := a.loadCrawledRepo(cmd, dataDir, nil)
			if err != nil {
				return err
			}
			defer db.Close()
			n, err := relation.NewStore(db).Remove(cmd.Context(), args[0], ids)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "relation %s: %d IDs given, %d removed, %d not in the relation; the change log is kept\n", args[0], len(ids), n, len(ids)-n)
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data", "", "data directory (repository)")
	cmd.Flags().StringVar(&idsFile, "ids", "", "file of IDs, as relation add reads it")
	return cmd
}

func (a *app) newRelationSyncCmd() *cobra.Command {
	var dataDir string
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "sync NAME [--dry-run] [--budget N]",
		Short: "Refresh a relation: the chosen probes with coverage and cost, their order and I, then the requests",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, db, logger, err := a.loadCrawledRepo(cmd, dataDir, nil)
			if err != nil {
				return err
			}
			defer db.Close()
			st := relation.NewStore(db)
			def, err := st.Definition(args[0])
			if err != nil {
				return err
			}
			cl, err := relationClient(cfg, def, logger)
			if err != nil {
				return err
			}
			start := time.Now()
			rep, err := relation.Sync(cmd.Context(), st, cl, args[0], time.Now().UTC(), cfg.Relation.SyncOptions(dryRun))
			if rep != nil {
				a.printSync(rep, time.Since(start))
			}
			return allowPrivateHint(err, "sync")
		},
	}
	cmd.Flags().StringVar(&dataDir, "data", "", "data directory (repository)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "plan only: print the probes, order and I without sending a request")
	addDialFlags(cmd)
	cmd.Flags().Int("budget", 0, "requests this sync may send (relation.budget)")
	cmd.Flags().Int("method", 0, "1 reads every result page, 2 the first only (relation.method)")
	bind(cmd.Flags(), map[string]string{"budget": "relation.budget", "method": "relation.method"})
	return cmd
}

func (a *app) printSync(rep *relation.SyncReport, took time.Duration) {
	p := rep.Plan
	fmt.Fprintf(a.stdout, "relation %s: %d records; %d probes planned, %d requests, coverage ratio %.3f, speed-up %.2f records/request (|R_S(q)| reported for %d queries, else |R_L(q)|)\n",
		rep.Name, rep.Rows, len(p.Probes), p.Requests, p.CoverageRatio, p.Speedup, rep.Known)
	if rep.Interval > 0 {
		fmt.Fprintf(a.stdout, "query interval I = %v (one query per I keeps expected staleness under alpha, §4.4)\n", rep.Interval.Round(time.Second))
	} else {
		fmt.Fprintf(a.stdout, "query interval I: none (%s)\n", rep.IntervalNote)
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "order\tquery\tgroup\t|R_L(q)|\t|R_S(q)|\tN(q)\tE_coverage\ta_i\tsent\treached")
	for i, pr := range rep.Probes {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%.0f\t%d\t%.2f\t%.3g\t%d\t%d\n", i+1, pr.Query(), len(pr.Tuples), pr.Matches, pr.Server, pr.Requests, pr.ExpectedCoverage, pr.A, pr.Sent, pr.Reached)
	}
	tw.Flush()
	if rep.DryRun {
		fmt.Fprintln(a.stdout, "dry run: no request sent")
		return
	}
	fmt.Fprintf(a.stdout, "sent %d requests in %v: %d records read (%d by ID), %d changed, %d missing\n",
		rep.Requests, took.Round(time.Millisecond), rep.Reached, rep.IDFetches, rep.Changed, rep.Missing)
	for _, pr := range rep.Probes {
		if pr.NoTotal != nil {
			fmt.Fprintf(a.stdout, "%d probes' results gave no count; the first, %q: %v\n", rep.NoTotal, pr.Query(), pr.NoTotal)
			break
		}
	}
	if rep.FailedFetches == 0 {
		return
	}
	fmt.Fprintf(a.stdout, "%d fetches by ID failed; those records are fetched after the others next time:\n", rep.FailedFetches)
	for _, f := range rep.Failures {
		fmt.Fprintf(a.stdout, "  %s: %v\n", f.ID, f.Err)
	}
	if more := rep.FailedFetches - len(rep.Failures); more > 0 {
		fmt.Fprintf(a.stdout, "  and %d more (relation show gives each record's last fetch error)\n", more)
	}
}

func (a *app) newRelationListCmd() *cobra.Command {
	var dataDir string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the relations: records, changes found, last sync, source",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, db, _, err := a.loadCrawledRepo(cmd, dataDir, nil)
			if err != nil {
				return err
			}
			defer db.Close()
			sts, err := relation.NewStore(db).Statuses(cmd.Context())
			if err != nil {
				return err
			}
			if len(sts) == 0 {
				fmt.Fprintln(a.stdout, "no relations: deltaq relation create NAME ... declares one")
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "name\trecords\tmissing\tchanges\tlast sync\tnext sync\tsearch")
			for _, st := range sts {
				last, next := "never", "at once"
				if !st.LastSync.IsZero() {
					last = st.LastSync.Format(time.RFC3339)
					next = relation.Due(st.LastSync, cfg.Relation.SyncEvery).Format(time.RFC3339)
				}
				if cfg.Relation.SyncEvery == 0 {
					next = "on demand"
				}
				fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\n", st.Name, st.Records, st.Missing, st.Changes, last, next, st.Source.Search)
			}
			tw.Flush()
			if cfg.Relation.SyncEvery > 0 {
				fmt.Fprintf(a.stdout, "deltaq serve and run sync each relation %v after its last sync (relation.sync_every)\n", cfg.Relation.SyncEvery)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data", "", "data directory (repository)")
	return cmd
}

func (a *app) newRelationShowCmd() *cobra.Command {
	var dataDir string
	var stalest int
	cmd := &cobra.Command{
		Use:   "show NAME [--stalest N]",
		Short: "Show a relation's records, the stalest (largest w·F̂) first",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, db, _, err := a.loadCrawledRepo(cmd, dataDir, func(*configs.Config) error {
				if stalest < 1 {
					return fmt.Errorf("--stalest %d: must be >= 1", stalest)
				}
				return nil
			})
			if err != nil {
				return err
			}
			defer db.Close()
			st := relation.NewStore(db)
			def, err := st.Definition(args[0])
			if err != nil {
				return err
			}
			rows, err := st.Rows(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			sorted, f := relation.Stalest(def, rows, time.Now().UTC(), cfg.Relation.SyncOptions(false))
			tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "id\tw·F̂\tλ̂ per unit\tlast read\tfields")
			for i := range min(stalest, len(sorted)) {
				r := sorted[i]
				last := "never"
				if !r.LastSync.IsZero() {
					last = r.LastSync.Format(time.RFC3339)
				}
				var fields []string
				for k, v := range r.Fields {
					fields = append(fields, k+"="+v)
				}
				if r.Missing {
					fields = append(fields, "(missing at the source)")
				}
				if r.FetchError != "" {
					fields = append(fields, fmt.Sprintf("(last fetch by ID failed %s: %s)", r.FetchErrorAt.Format(time.RFC3339), r.FetchError))
				}
				fmt.Fprintf(tw, "%s\t%.3g\t%.3g\t%s\t%s\n", r.ID, f[i], r.Rate.Rate(cfg.Relation.RatePrior, cfg.Relation.RatePriorWeight), last, strings.Join(sortedStrings(fields), " "))
			}
			tw.Flush()
			fmt.Fprintf(a.stdout, "%d of %d records shown\n", min(stalest, len(sorted)), len(sorted))
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data", "", "data directory (repository)")
	cmd.Flags().IntVar(&stalest, "stalest", 20, "how many records to show")
	return cmd
}

func sortedStrings(s []string) []string {
	slices.Sort(s)
	return s
}

// maxIDsFileBytes bounds a file of IDs (relation add and rm --ids): read
// whole, a file with no end (/dev/zero) must not exhaust memory first.
const maxIDsFileBytes = 256 << 20
