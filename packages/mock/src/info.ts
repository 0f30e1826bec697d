import type { Dataset } from './dataset.js';

/** What a mock tells its user: credentials and who to upload for (`rcs mock` prints it). */
export interface MockInfo {
  /** Every organization's API keys, first organization first. */
  apiKeys: string[];
  /** Emails of existing reps of the first organization, usable with `apiKeys[0]` (R2). */
  repEmails: string[];
  organizations: {
    id: string;
    name: string;
    apiKeys: string[];
    repEmails: string[];
    emailDomains: string[];
    autoCreateUsers: boolean;
    seatLimit?: number;
  }[];
  /** The HS256 secret for bearer tokens (D22), when the data has one. */
  jwtSecret?: string;
}

export function infoOf(dataset: Dataset): MockInfo {
  const organizations = dataset.organizations.map((o) => {
    const repEmails: string[] = [];
    for (let i = 0; i < o.users.length && repEmails.length < 3; i++) {
      const e = o.users.at(i).email;
      if (e) repEmails.push(e);
    }
    return {
      id: o.id,
      name: o.name,
      apiKeys: o.apiKeys,
      repEmails,
      emailDomains: o.settings.emailDomains,
      autoCreateUsers: o.settings.autoCreateUsers,
      seatLimit: o.settings.seatLimit,
    };
  });
  return {
    apiKeys: organizations.flatMap((o) => o.apiKeys),
    // The first organization's: they go with the first API key (what `rcs mock` prints).
    repEmails: organizations[0]?.repEmails ?? [],
    organizations,
    jwtSecret: dataset.jwtSecret,
  };
}
