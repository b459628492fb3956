package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/eval/relationeval"
)

func (a *app) newEvalRelationCmd() *cobra.Command {
	var out, synth string
	cmd := &cobra.Command{
		Use:   "relation (--synth citations | --archive DIR --log FILE [--budgets a,b]) --out DIR",
		Short: "Relations kept fresh through keyword search: Fig. 2 re-run, or real pages through the replay's added search (Yang et al., SIGMOD 2010)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkRelationMode(cmd, synth); err != nil {
				return err
			}
			cfg, err := a.loadEval(cmd, out, func(c *configs.Config) map[string][]string {
				if synth != "" {
					return nil // the synthetic model reads no file
				}
				return map[string][]string{"archive": {c.Eval.Relation.Archive.Archive}, "log": {c.Eval.Relation.Archive.Log}}
			})
			if err != nil {
				return err
			}
			var sum *relationeval.Summary
			p := a.tracker()
			switch synth {
			case "citations":
				sum, err = relationeval.RunSynth(cmd.Context(), cfg.Eval.Relation.Synth, out, p)
			case "":
				sum, err = relationeval.RunArchive(cmd.Context(), cfg.Eval.Relation.Archive, out, p)
			default:
				return fmt.Errorf("--synth %q: the only synthetic model is citations", synth)
			}
			if err != nil {
				return interrupted(cmd.Context(), p, err)
			}
			met := 0
			for _, t := range sum.Targets {
				if t.Met {
					met++
				}
				a.printTarget(t.Name, t.Met, t.Measured)
			}
			fmt.Fprintf(a.stdout, "%s: %d of %d targets met in %s; report: %s\n", sum.Mode, met, len(sum.Targets),
				sum.Elapsed.Round(time.Second), filepath.Join(out, "report.md"))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output directory")
	cmd.Flags().StringVar(&synth, "synth", "", "run the synthetic model instead of an archive: citations (Fig. 2)")
	cmd.Flags().String("archive", "", "archive directory (eval.relation.archive.archive)")
	cmd.Flags().String("log", "", "query log naming the tracked pages (eval.relation.archive.log)")
	cmd.Flags().IntSlice("budgets", nil, "requests per week (eval.relation.archive.budgets)")
	cmd.Flags().Int("seeds", 0, "seeds of the synthetic run (eval.relation.synth.seeds)")
	bind(cmd.Flags(), map[string]string{
		"archive": "eval.relation.archive.archive", "log": "eval.relation.archive.log",
		"budgets": "eval.relation.archive.budgets", "seeds": "eval.relation.synth.seeds",
	})
	return cmd
}

// checkRelationMode refuses a flag of the mode eval relation does not run,
// which would otherwise be dropped without a word: the synthetic model
// reads no archive, and the archive replay has no seeds.
func checkRelationMode(cmd *cobra.Command, synth string) error {
	unread, mode, reads := []string{"seeds"}, "without --synth", "--synth citations"
	if synth != "" {
		unread, mode, reads = []string{"archive", "log", "budgets"}, "with --synth "+synth, "the archive replay (no --synth)"
	}
	for _, name := range unread {
		if cmd.Flags().Changed(name) {
			return fmt.Errorf("--%s %s: only %s reads it", name, mode, reads)
		}
	}
	return nil
}
