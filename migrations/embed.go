// Package migrations holds boolpool's numbered SQL schema migrations
// (NNNN_name.sql), applied in order by the store's migrator.
package migrations

import "embed"

// FS holds the migration files.
//
//go:embed *.sql
var FS embed.FS
