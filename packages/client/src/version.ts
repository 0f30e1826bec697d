/** The package's version, in the User-Agent and as the tracer's version. */
export const CLIENT_VERSION = '0.1.0';
