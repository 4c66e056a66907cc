// What a user without the optional packages sees: each missing one is named, with the command.
import { S3Storage, SqliteStorage } from 'floe';
import { distributedWrite } from 'floe/distributed';

async function failure(action) {
  try {
    await action();
    return { code: 'NONE', message: 'it worked' };
  } catch (err) {
    return { code: err.code ?? err.name, message: err.message };
  }
}

console.log(JSON.stringify({
  testing: await failure(() => import('floe/testing')),
  sqlite: await failure(() => new SqliteStorage({ file: 'never-created.db' })),
  // The SDK loads on the first request, before anything is sent.
  s3: await failure(() => new S3Storage({ bucket: 'b', endpoint: 'http://127.0.0.1:9', region: 'us-east-1', anonymous: true }).get('k')),
  // floe/distributed imports without BullMQ; its Redis client is checked first, before any connection.
  distributed: await failure(() => distributedWrite({}, { branch: 'main', queue: { name: 'q', redis: 'redis://127.0.0.1:9' }, tasks: [1], message: 'm' })),
}));
