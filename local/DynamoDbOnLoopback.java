/*
 * Starts DynamoDB Local exactly as its own main does (same arguments), but with its HTTP connector
 * bound to one address, loopback unless -Dlms.dynamodb.host says otherwise. DynamoDB Local has no
 * option for it and listens on every interface, where anyone on the network could read and write
 * every tenant. local/dynamodb-local.ts runs this file in Java's source-file mode against
 * DynamoDBLocal.jar. It fails rather than start on every interface if DynamoDB Local changes shape.
 */
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class DynamoDbOnLoopback {
  public static void main(String[] args) {
    String host = System.getProperty("lms.dynamodb.host", "127.0.0.1");
    try {
      DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
      Field field = DynamoDBProxyServer.class.getDeclaredField("server");
      field.setAccessible(true);
      Connector[] connectors = ((Server) field.get(proxy)).getConnectors();
      if (connectors.length == 0) throw new IllegalStateException("no HTTP connector to bind");
      for (Connector connector : connectors) ((ServerConnector) connector).setHost(host);
      proxy.start();
      // The line the stack waits for: from here on, requests on this port reach this process.
      System.out.println("DynamoDB Local is listening on " + host);
    } catch (Exception | LinkageError e) {
      System.err.println("DynamoDB Local could not be bound to " + host + ": " + e);
      System.exit(1);
    }
  }
}
