package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/fanouteval"
	"github.com/deltaq/deltaq/internal/querylog"
)

func (a *app) newEvalFanoutCmd() *cobra.Command {
	var (
		out, logPath string
		dirs, parts  []string
	)
	cmd := &cobra.Command{
		Use:   "fanout --archive DIR... --log FILE --out DIR [--shards S] [--partition host,url]",
		Short: "Search fanned out over S indexes against one index: top-k overlap with local and with global statistics",
		Long: `fanout indexes one week of the archives (--archive, repeatable) once whole and
once split over --shards indexes, one per node, per --partition (host: each
host in one of cluster.shards host shards, dealt to the nodes in turn, as the
crawl cluster splits; url: by URL hash, every node a sample of every host), asks
the query log's queries of both through the searcher, the split one through
the same fan-out and merge deltaq serve --cluster uses, with each shard's own
statistics and with the cluster's, and reports how often the merged top k is
the single index's. With eval.fanout.stale_weeks, also the case of statistics
exchanged periodically: the cluster's statistics as of --week, the pages
stale_weeks later.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadEval(cmd, out, func(*configs.Config) map[string][]string {
				return map[string][]string{"archive": dirs, "log": {logPath}}
			})
			if err != nil {
				return err
			}
			if len(dirs) == 0 {
				return fmt.Errorf("--archive: at least one archive directory is required")
			}
			if logPath == "" {
				return fmt.Errorf("--log: a query log is required")
			}
			var partitions []fanouteval.Partition
			for _, s := range parts {
				p, err := fanouteval.ParsePartition(s)
				if err != nil {
					return err
				}
				partitions = append(partitions, p)
			}
			var archives []*archive.Archive
			var names []string
			for _, d := range dirs {
				ar, err := archive.Open(d)
				if err != nil {
					return fmt.Errorf("--archive %s: %w", d, err)
				}
				archives = append(archives, ar)
				names = append(names, ar.Name())
			}
			queries, err := querylog.Load(logPath, querylog.FormatAuto)
			if err != nil {
				return fmt.Errorf("--log: %w", err)
			}
			header := fmt.Sprintf("# deltaq eval fanout\n\nArchives %s, week %d; log %s (%d queries); %d nodes, by host: %d host shards (cluster.shards) dealt to them; eval.fanout %+v; index.retrieval %+v.",
				strings.Join(names, " + "), cfg.Eval.Fanout.Week, filepath.Base(logPath), len(queries), cfg.Eval.Fanout.Shards, cfg.Cluster.Shards, cfg.Eval.Fanout, cfg.Index.Retrieval)
			p := a.tracker()
			sum, err := fanouteval.Run(cmd.Context(), fanouteval.Options{
				Config: cfg.Eval.Fanout, Index: cfg.Index, Repo: cfg.Repo, Extract: cfg.Crawler.Extract,
				Archives: archives, Queries: queries, Partitions: partitions, HostShards: cfg.Cluster.Shards, Header: header, Logger: a.logger(cfg),
			}, out, p)
			if err != nil {
				return interrupted(cmd.Context(), p, err)
			}
			for _, r := range sum.Rows {
				stats := r.Statistics.String()
				if r.StaleWeeks > 0 {
					stats += fmt.Sprintf(" %d week(s) old", r.StaleWeeks)
				}
				fmt.Fprintf(a.stdout, "%s/%s: %d queries: same top-%d set %.4f, same order %.4f, mean overlap %.4f, %.1f rounds and %.0f bytes per query\n",
					r.Partition, stats, r.Compared, cfg.Eval.Fanout.Depth, r.SetEqual, r.ListEqual, r.Overlap, r.Rounds, r.Bytes)
			}
			fmt.Fprintf(a.stdout, "%d pages, %d queries (%d refused) in %s; report: %s\n", sum.Pages, sum.Queries, sum.Refused,
				sum.Took.Round(time.Second), filepath.Join(out, "report.md"))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output directory")
	cmd.Flags().StringSliceVar(&dirs, "archive", nil, "archive directory (repeatable: the archives are indexed together)")
	cmd.Flags().StringVar(&logPath, "log", "", "query log (TREC topics, query<TAB>count or one query a line)")
	cmd.Flags().StringSliceVar(&parts, "partition", []string{"host", "url"}, "how pages are split: host, url or both")
	cmd.Flags().Int("shards", 0, "indexes the pages are split over (eval.fanout.shards)")
	cmd.Flags().Int("max-queries", 0, "a seeded sample of this many queries; 0 = all (eval.fanout.max_queries)")
	cmd.Flags().Int("week", 0, "archive week (eval.fanout.week)")
	bind(cmd.Flags(), map[string]string{
		"shards":      "eval.fanout.shards",
		"max-queries": "eval.fanout.max_queries",
		"week":        "eval.fanout.week",
	})
	return cmd
}
