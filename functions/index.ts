import { app } from '@azure/functions';
import { connectorStatusHandler } from '../src/api/connector-status';
import { serviceRegistry } from '../src/runtime/service';

app.http('connectorStatus', {
  methods: ['POST'],
  route: 'connectors/{name}/status',
  authLevel: 'function',
  handler: connectorStatusHandler(serviceRegistry),
});
