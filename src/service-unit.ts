// `listmgr service-unit`: a systemd unit that runs the server as its own user, able to write
// only its data folder (the database, its WAL and lock, the uploads, and the cache folder of
// the release executable's native libraries, src/sea.ts), restarted when it fails, and stopped
// with SIGTERM, which the server answers by finishing in-flight requests and checkpointing
// the WAL (src/server.ts gives open connections 10 s, then closes them).

export interface ServiceUnitOptions {
  /** The system user the service runs as (also its group). */
  user: string;
  /** The data folder: absolute; the only one the service may write. */
  dir: string;
  /** The executable's absolute path. */
  exec: string;
  /** host:port the server listens on (a reverse proxy in front answers the public). */
  address: string;
}

export class ServiceUnitError extends Error {}

const USER = /^[a-z_][a-z0-9_-]{0,30}$/;
// Paths go into the unit unquoted: characters systemd would read as quoting, a specifier (%)
// or a separator are refused rather than escaped.
const SAFE_PATH = /^\/[A-Za-z0-9._/+@-]*$/;
const ADDRESS = /^[A-Za-z0-9.:[\]-]+:\d{1,5}$/;

function check(o: ServiceUnitOptions): void {
  if (!USER.test(o.user)) throw new ServiceUnitError(`invalid --user "${o.user}": a system user name (lower-case letters, digits, _ and -, starting with a letter or _)`);
  if (o.user === 'root') throw new ServiceUnitError('invalid --user "root": the service runs as a user of its own');
  for (const [flag, path] of [['--dir', o.dir], ['--exec', o.exec]] as const) {
    if (!SAFE_PATH.test(path)) throw new ServiceUnitError(`invalid ${flag} "${path}": an absolute path of letters, digits and . _ / + @ -`);
    if (path.split('/').includes('..')) throw new ServiceUnitError(`invalid ${flag} "${path}": no ".." parts`);
  }
  if (o.dir.replace(/\/+$/, '') === '') throw new ServiceUnitError('invalid --dir "/": the data folder is the one folder the service may write');
  if (!ADDRESS.test(o.address)) throw new ServiceUnitError(`invalid --address "${o.address}": HOST:PORT`);
}

/** The unit file's text. Throws ServiceUnitError naming a bad option. */
export function serviceUnit(o: ServiceUnitOptions): string {
  check(o);
  const dir = o.dir.replace(/\/+$/, '');
  return `# listmgr as a systemd service (listmgr service-unit --user ${o.user} --dir ${dir}).
# Save as /etc/systemd/system/listmgr.service, then:
#   systemctl daemon-reload && systemctl enable --now listmgr
[Unit]
Description=listmgr newsletter and mailing-list manager
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User=${o.user}
Group=${o.user}
WorkingDirectory=${dir}
Environment=LISTMGR_DB=${dir}/listmgr.db
Environment=LISTMGR_UPLOADS=${dir}/uploads
Environment=LISTMGR_ADDRESS=${o.address}
Environment=LISTMGR_CACHE_DIR=${dir}/.cache
# Memory while sending (docs/performance.md, "Memory and start-up"): two malloc arenas instead
# of one per thread, and V8's young generation at 2 x 8 MB instead of 2 x 16 (about 15 MB less
# at the peak, for 4-9% more CPU time).
Environment=MALLOC_ARENA_MAX=2
Environment=NODE_OPTIONS=--max-semi-space-size=8
# On a machine short of memory, 2 x 2 MB: about 9 MB less again, for about 30% more CPU time
# than with 2 x 16 MB. Uncomment to use.
#Environment=NODE_OPTIONS=--max-semi-space-size=2
ExecStart=${o.exec} serve --db ${dir}/listmgr.db
Restart=on-failure
RestartSec=5
# The graceful stop: in-flight requests finish, the WAL is checkpointed.
KillSignal=SIGTERM
TimeoutStopSec=30
UMask=0077

# Hardening: the data folder is the only place it may write.
NoNewPrivileges=yes
ProtectSystem=strict
ReadWritePaths=${dir}
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
RestrictSUIDSGID=yes
RestrictRealtime=yes
RestrictNamespaces=yes
LockPersonality=yes
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6
CapabilityBoundingSet=
SystemCallArchitectures=native

[Install]
WantedBy=multi-user.target
`;
}
