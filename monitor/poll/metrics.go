package poll

import "github.com/prometheus/client_golang/prometheus"

// Collector exports the poller's counters (Stats) at each scrape.
func (p *Poller) Collector() prometheus.Collector { return collector{p} }

type collector struct{ p *Poller }

var (
	demandsDesc  = prometheus.NewDesc("deltaq_monitor_demands", "Monitoring demands: feeds (polled at their planned times) and watch members (WIC).", nil, nil)
	urlsDesc     = prometheus.NewDesc("deltaq_monitor_urls", "Monitored URLs: demands on one URL share its fetches.", nil, nil)
	pickedDesc   = prometheus.NewDesc("deltaq_monitor_picks_total", "URLs picked for a poll of the monitoring class.", nil, nil)
	ingestedDesc = prometheus.NewDesc("deltaq_monitor_ingested_total", "Fetches of monitored URLs handed to their feeds and watches.", nil, nil)
	itemsDesc    = prometheus.NewDesc("deltaq_monitor_feed_items_total", "Feed items first seen in those fetches.", nil, nil)
	firedDesc    = prometheus.NewDesc("deltaq_monitor_watch_triggers_total", "Sentinel triggers that held on those fetches.", nil, nil)
	failedDesc   = prometheus.NewDesc("deltaq_monitor_failed_total", "Feeds or watch checks that could not use a fetch.", nil, nil)
)

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{demandsDesc, urlsDesc, pickedDesc, ingestedDesc, itemsDesc, firedDesc, failedDesc} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	s := c.p.Stats()
	ch <- prometheus.MustNewConstMetric(demandsDesc, prometheus.GaugeValue, float64(s.Demands))
	ch <- prometheus.MustNewConstMetric(urlsDesc, prometheus.GaugeValue, float64(s.URLs))
	for _, m := range []struct {
		d *prometheus.Desc
		v int64
	}{{pickedDesc, s.Picked}, {ingestedDesc, s.Ingested}, {itemsDesc, s.NewItems}, {firedDesc, s.Fired}, {failedDesc, s.Failed}} {
		ch <- prometheus.MustNewConstMetric(m.d, prometheus.CounterValue, float64(m.v))
	}
}
