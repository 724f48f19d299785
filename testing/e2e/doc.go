// Package e2e holds edged's end-to-end suites: the daemon in-process or as a child
// process, a real Mosquitto, a real Badger directory, results checked against the
// batch oracle in testing/oracle.
package e2e
