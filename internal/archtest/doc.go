// Package archtest holds the test that keeps edged's packages in the layers the
// design gives them: it reads the import rules from the table in
// docs/architecture.md and checks every package of the module against them, so
// the documented rules and the code cannot drift apart. It has no code of its
// own.
package archtest
