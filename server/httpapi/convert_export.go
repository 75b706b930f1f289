package httpapi

import (
	"boolpool/api"
	"boolpool/server/export"
)

func toAPICrowdParticipant(d export.CrowdParticipant) api.CrowdParticipant {
	return api.CrowdParticipant(d)
}

func toAPIExportSnapshot(d export.Record) api.ExportSnapshot { return api.ExportSnapshot(d) }
