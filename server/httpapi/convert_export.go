package httpapi

import (
	"boolpool/api"
	"boolpool/server/export"
)

func toAPICrowdParticipant(d export.CrowdParticipant) api.CrowdParticipant {
	return api.CrowdParticipant(d)
}
