package actors

import (
	"reflect"

	"github.com/prometheus/client_golang/prometheus"
)

// forget deletes every labelled series whose labels include all of labels, in
// every vector of m: a removed device or window must not linger on /status.
// Vectors without one of those labels match nothing.
func (m *Metrics) forget(labels prometheus.Labels) {
	v := reflect.ValueOf(m).Elem()
	for i := range v.NumField() {
		if vec, ok := v.Field(i).Interface().(interface {
			DeletePartialMatch(prometheus.Labels) int
		}); ok {
			vec.DeletePartialMatch(labels)
		}
	}
}
