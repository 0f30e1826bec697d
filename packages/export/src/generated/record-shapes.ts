/**
 * Generated from openapi.yaml by scripts/gen-export-shapes.mjs (`npm run gen`); do not edit.
 * The type of every property of the export records, as D27 maps them to Parquet.
 */
import type { RecordShape } from '../shape.js';

export const RECORD_SHAPES = {
  "MissionAssignmentExportRecord": {
    "type": "struct",
    "nullable": false,
    "fields": [
      {
        "name": "id",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "createdAt",
        "shape": {
          "type": "timestamp",
          "nullable": false
        }
      },
      {
        "name": "lastUpdatedAt",
        "shape": {
          "type": "timestamp",
          "nullable": false
        }
      },
      {
        "name": "learnerUserId",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "missionId",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "startDate",
        "shape": {
          "type": "timestamp",
          "nullable": false
        }
      },
      {
        "name": "dueDate",
        "shape": {
          "type": "timestamp",
          "nullable": true
        }
      },
      {
        "name": "status",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "completedAt",
        "shape": {
          "type": "timestamp",
          "nullable": true
        }
      },
      {
        "name": "assignedByUserId",
        "shape": {
          "type": "string",
          "nullable": true
        }
      },
      {
        "name": "sprintId",
        "shape": {
          "type": "string",
          "nullable": true
        }
      }
    ]
  },
  "MissionExportRecord": {
    "type": "struct",
    "nullable": false,
    "fields": [
      {
        "name": "id",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "title",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "language",
        "shape": {
          "type": "string",
          "nullable": false
        }
      }
    ]
  },
  "RealCallSessionExportItem": {
    "type": "struct",
    "nullable": false,
    "fields": [
      {
        "name": "name",
        "shape": {
          "type": "string",
          "nullable": true
        }
      },
      {
        "name": "solved",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "explanation",
        "shape": {
          "type": "string",
          "nullable": true
        }
      },
      {
        "name": "suggestion",
        "shape": {
          "type": "string",
          "nullable": true
        }
      },
      {
        "name": "itemScore",
        "shape": {
          "type": "double",
          "nullable": false
        }
      }
    ]
  },
  "RealCallSessionExportRecord": {
    "type": "struct",
    "nullable": false,
    "fields": [
      {
        "name": "id",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "createdAt",
        "shape": {
          "type": "timestamp",
          "nullable": false
        }
      },
      {
        "name": "lastUpdatedAt",
        "shape": {
          "type": "timestamp",
          "nullable": false
        }
      },
      {
        "name": "learnerUserId",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "transcript",
        "shape": {
          "type": "string",
          "nullable": true
        }
      },
      {
        "name": "language",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "completed",
        "shape": {
          "type": "boolean",
          "nullable": false
        }
      },
      {
        "name": "analysis",
        "shape": {
          "type": "struct",
          "nullable": false,
          "fields": [
            {
              "name": "score",
              "shape": {
                "type": "double",
                "nullable": false
              }
            },
            {
              "name": "items",
              "shape": {
                "type": "list",
                "nullable": false,
                "element": {
                  "type": "struct",
                  "nullable": false,
                  "fields": [
                    {
                      "name": "name",
                      "shape": {
                        "type": "string",
                        "nullable": true
                      }
                    },
                    {
                      "name": "solved",
                      "shape": {
                        "type": "string",
                        "nullable": false
                      }
                    },
                    {
                      "name": "explanation",
                      "shape": {
                        "type": "string",
                        "nullable": true
                      }
                    },
                    {
                      "name": "suggestion",
                      "shape": {
                        "type": "string",
                        "nullable": true
                      }
                    },
                    {
                      "name": "itemScore",
                      "shape": {
                        "type": "double",
                        "nullable": false
                      }
                    }
                  ]
                }
              }
            }
          ]
        }
      },
      {
        "name": "missionId",
        "shape": {
          "type": "string",
          "nullable": true
        }
      },
      {
        "name": "participantUserIds",
        "shape": {
          "type": "list",
          "nullable": true,
          "element": {
            "type": "string",
            "nullable": false
          }
        }
      }
    ]
  },
  "ScorecardExportRecord": {
    "type": "struct",
    "nullable": false,
    "fields": [
      {
        "name": "id",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "title",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "language",
        "shape": {
          "type": "string",
          "nullable": false
        }
      }
    ]
  },
  "SprintExportRecord": {
    "type": "struct",
    "nullable": false,
    "fields": [
      {
        "name": "id",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "title",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "createdAt",
        "shape": {
          "type": "timestamp",
          "nullable": false
        }
      },
      {
        "name": "lastUpdatedAt",
        "shape": {
          "type": "timestamp",
          "nullable": false
        }
      },
      {
        "name": "userId",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "dueDate",
        "shape": {
          "type": "timestamp",
          "nullable": false
        }
      },
      {
        "name": "assignedTeamId",
        "shape": {
          "type": "string",
          "nullable": false
        }
      }
    ]
  },
  "TeamExportRecord": {
    "type": "struct",
    "nullable": false,
    "fields": [
      {
        "name": "id",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "name",
        "shape": {
          "type": "string",
          "nullable": false
        }
      }
    ]
  },
  "TrackAssignmentExportRecord": {
    "type": "struct",
    "nullable": false,
    "fields": [
      {
        "name": "id",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "createdAt",
        "shape": {
          "type": "timestamp",
          "nullable": false
        }
      },
      {
        "name": "lastUpdatedAt",
        "shape": {
          "type": "timestamp",
          "nullable": false
        }
      },
      {
        "name": "learnerUserId",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "trackId",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "startDate",
        "shape": {
          "type": "timestamp",
          "nullable": false
        }
      },
      {
        "name": "dueDate",
        "shape": {
          "type": "timestamp",
          "nullable": true
        }
      },
      {
        "name": "status",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "completedAt",
        "shape": {
          "type": "timestamp",
          "nullable": true
        }
      },
      {
        "name": "completedMissionIds",
        "shape": {
          "type": "list",
          "nullable": false,
          "element": {
            "type": "string",
            "nullable": false
          }
        }
      },
      {
        "name": "assignedByUserId",
        "shape": {
          "type": "string",
          "nullable": true
        }
      },
      {
        "name": "sprintId",
        "shape": {
          "type": "string",
          "nullable": true
        }
      }
    ]
  },
  "TrackExportRecord": {
    "type": "struct",
    "nullable": false,
    "fields": [
      {
        "name": "id",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "title",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "description",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "missionIds",
        "shape": {
          "type": "list",
          "nullable": false,
          "element": {
            "type": "string",
            "nullable": false
          }
        }
      },
      {
        "name": "archived",
        "shape": {
          "type": "boolean",
          "nullable": false
        }
      }
    ]
  },
  "UserExportRecord": {
    "type": "struct",
    "nullable": false,
    "fields": [
      {
        "name": "id",
        "shape": {
          "type": "string",
          "nullable": false
        }
      },
      {
        "name": "email",
        "shape": {
          "type": "string",
          "nullable": true
        }
      },
      {
        "name": "firstName",
        "shape": {
          "type": "string",
          "nullable": true
        }
      },
      {
        "name": "lastName",
        "shape": {
          "type": "string",
          "nullable": true
        }
      },
      {
        "name": "teamIds",
        "shape": {
          "type": "list",
          "nullable": false,
          "element": {
            "type": "string",
            "nullable": false
          }
        }
      },
      {
        "name": "createdAt",
        "shape": {
          "type": "timestamp",
          "nullable": false
        }
      }
    ]
  }
} as const satisfies Record<string, RecordShape>;
