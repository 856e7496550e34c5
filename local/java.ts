/** DynamoDB Local runs on Java 17+; say so plainly instead of failing with a spawn error. */
import { spawnSync } from 'node:child_process'

export function checkJava(): void {
  const out = spawnSync('java', ['-version'], { encoding: 'utf8' })
  if (out.error || out.status !== 0) {
    throw new Error(
      'Java was not found. DynamoDB Local (the embedded database) needs Java 17 or newer: ' +
        'install it (for example `apt-get install -y openjdk-17-jre-headless`) and run the command again.',
    )
  }
  const version = /version "(\d+)/.exec(out.stderr)?.[1]
  if (version !== undefined && Number(version) < 17) {
    throw new Error(`Java ${version} was found; DynamoDB Local needs Java 17 or newer.`)
  }
}
