// Preloaded (`node --expose-gc --import`) by the tests that prove a deadline holds after a
// garbage collection: collects often, so that anything only weakly held goes early.
setInterval(() => globalThis.gc?.(), 20).unref();
