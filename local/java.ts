/**
 * DynamoDB Local runs on Java 17+, started through a launcher Java compiles as it runs it (see
 * dynamodb-local.ts), which needs the jdk.compiler module: say so plainly instead of failing later.
 */
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
  const modules = spawnSync('java', ['--list-modules'], { encoding: 'utf8' })
  if (!/^jdk\.compiler@/m.test(modules.stdout ?? '')) {
    throw new Error(
      'This Java runtime lacks the jdk.compiler module, which starts DynamoDB Local bound to loopback: ' +
        'install a full JDK 17 or newer (for example `apt-get install -y openjdk-17-jdk-headless`).',
    )
  }
}
