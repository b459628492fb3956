package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/eval/feedreplay"
	"github.com/deltaq/deltaq/eval/feedtrace"
)

func (a *app) newWebFeedsCmd() *cobra.Command {
	var (
		data, listen, start string
		speed               float64
		items               int
	)
	cmd := &cobra.Command{
		Use:   "feeds --data DIR --listen ADDR --speed N [--start 2025-03-03T00:00:00Z|2025-03-03]",
		Short: "Serve the real feed posting trace as Atom feeds, replayed N times as fast as real time",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.load(cmd)
			if err != nil {
				return err
			}
			if !(speed > 0 && speed <= feedreplay.MaxSpeed) {
				return fmt.Errorf("--speed = %g: must be > 0 and ≤ %g (a year in about half a minute)", speed, float64(feedreplay.MaxSpeed))
			}
			if items < 1 {
				return fmt.Errorf("--items = %d: must be ≥ 1", items)
			}
			from, err := time.Parse(time.RFC3339, start)
			if err != nil { // a date alone is its midnight UTC
				from, err = time.Parse(time.DateOnly, start)
			}
			if err != nil {
				return fmt.Errorf("--start = %q: must be an RFC 3339 time or a date, e.g. 2025-03-03T00:00:00Z or 2025-03-03 (midnight UTC)", start)
			}
			if data == "" {
				return errors.New("--data: the posting trace folder is required")
			}
			if err := checkInputs(cmd, map[string][]string{"data": {data}}); err != nil {
				return err
			}
			tr, err := feedtrace.Load(cmd.Context(), data)
			if err != nil {
				return err
			}
			srv, err := feedreplay.New(tr, feedreplay.Options{Now: feedreplay.Speed(from, speed, time.Now), Items: items})
			if err != nil {
				return err
			}
			what := fmt.Sprintf("%d feeds from %s at %g× (feed list at /)", len(tr.Feeds), from.Format(time.RFC3339), speed)
			hosts := []string{feedreplay.Host}
			politeness := politenessFlag(hosts, cfg.Web.Replay.CrawlMinDelay, cfg.Web.Replay.CrawlPerHost)
			return a.serveWeb(cmd.Context(), listen, srv, hosts, politeness, what, a.logger(cfg))
		},
	}
	cmd.Flags().StringVar(&data, "data", "datasets/feeds", "posting trace folder")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8082", "address to listen on")
	cmd.Flags().Float64Var(&speed, "speed", 1, "replayed seconds per wall-clock second")
	cmd.Flags().StringVar(&start, "start", "2025-03-03T00:00:00Z", "replayed time at start (RFC 3339, or a date for its midnight UTC)")
	cmd.Flags().IntVar(&items, "items", 20, "latest postings each feed shows")
	return cmd
}
