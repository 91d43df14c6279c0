'use strict';
// Acts as a kubelet written in another language: registers with a DRA driver through its registration socket,
// prepares and unprepares one claim under every DRA API version the driver advertises, and opens every advertised
// health stream, calling each method by its full upstream gRPC name. Prints one JSON line per call and exits non-zero on the first unexpected answer.
//
// Usage: node interop.js <registration socket> <proto dir> <namespace> <claim name> <claim uid>

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const [registrationSocket, protoDir, namespace, claimName, claimUid] = process.argv.slice(2);
if (!claimUid) {
  console.error('usage: node interop.js <registration socket> <proto dir> <namespace> <claim name> <claim uid>');
  process.exit(2);
}

// What the kubelet finds in supported_versions, and the proto file and gRPC service behind it.
const DRA_VERSIONS = {
  'v1.DRAPlugin': { proto: 'dra/v1/api.proto', service: 'k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin' },
  'v1beta1.DRAPlugin': { proto: 'dra/v1beta1/api.proto', service: 'k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin' },
  'v1alpha3.NodeService': { proto: 'dra/v1alpha4/api.proto', service: 'v1alpha3.Node' },
};

const HEALTH_VERSIONS = {
  'v1.DRAResourceHealth': { proto: 'dra-health/v1/api.proto', service: 'v1.DRAResourceHealth' },
  'v1beta1.DRAResourceHealth': { proto: 'dra-health/v1beta1/api.proto', service: 'v1beta1.DRAResourceHealth' },
  'v1alpha1.DRAResourceHealth': { proto: 'dra-health/v1alpha1/api.proto', service: 'v1alpha1.DRAResourceHealth' },
};

function load(protoFile) {
  return protoLoader.loadSync(path.join(protoDir, protoFile), { keepCase: true, defaults: true });
}

function report(method, result) {
  console.log(JSON.stringify({ method, ...result }));
}

function fail(method, message) {
  report(method, { ok: false, error: message });
  process.exit(1);
}

// The loaded definition of the method with this literal full name; there must be one.
function methodNamed(definition, fullMethod) {
  const method = Object.values(definition).find((m) => m.path === fullMethod);
  if (!method) {
    fail(fullMethod, 'no method with this full name in the loaded .proto files');
  }
  return method;
}

// Calls a unary method by its literal full name, checking that the loaded definition agrees with it.
function call(client, definition, fullMethod, request) {
  const method = methodNamed(definition, fullMethod);
  return new Promise((resolve) => {
    client.makeUnaryRequest(fullMethod, method.requestSerialize, method.responseDeserialize, request,
      (error, response) => {
        if (error) {
          fail(fullMethod, `${grpc.status[error.code]}: ${error.details}`);
        }
        resolve(response);
      });
  });
}

// Opens a server stream by its literal full name and resolves with its first message; then cancels the stream.
function firstOfStream(client, definition, fullMethod, request) {
  const method = methodNamed(definition, fullMethod);
  return new Promise((resolve) => {
    const stream = client.makeServerStreamRequest(fullMethod, method.requestSerialize, method.responseDeserialize,
      request);
    stream.on('data', (message) => {
      stream.cancel();
      resolve(message);
    });
    stream.on('error', (error) => {
      if (error.code !== grpc.status.CANCELLED) {
        fail(fullMethod, `${grpc.status[error.code]}: ${error.details}`);
      }
    });
  });
}

function client(socket) {
  return new grpc.Client(`unix://${socket}`, grpc.credentials.createInsecure());
}

async function main() {
  const registration = load('pluginregistration/v1/api.proto')['pluginregistration.Registration'];
  const registrar = client(registrationSocket);
  const info = await call(registrar, registration, '/pluginregistration.Registration/GetInfo', {});
  if (info.type !== 'DRAPlugin') {
    fail('/pluginregistration.Registration/GetInfo', `type ${info.type}`);
  }
  report('/pluginregistration.Registration/GetInfo',
    { ok: true, name: info.name, endpoint: info.endpoint, supported_versions: info.supported_versions });
  await call(registrar, registration, '/pluginregistration.Registration/NotifyRegistrationStatus',
    { plugin_registered: true, error: '' });
  report('/pluginregistration.Registration/NotifyRegistrationStatus', { ok: true });
  registrar.close();

  const dra = client(info.endpoint);
  const claims = [{ namespace, name: claimName, uid: claimUid }];
  const expectedCdiId = `${info.name}/test=claim-${claimUid}-req`;
  for (const version of info.supported_versions.filter((v) => DRA_VERSIONS[v])) {
    const { proto, service } = DRA_VERSIONS[version];
    const definition = load(proto)[service];

    const prepare = `/${service}/NodePrepareResources`;
    const prepared = (await call(dra, definition, prepare, { claims })).claims[claimUid];
    if (!prepared || prepared.error !== '' || prepared.devices.length !== 1
        || prepared.devices[0].cdi_device_ids[0] !== expectedCdiId) {
      fail(prepare, `unexpected answer ${JSON.stringify(prepared)}`);
    }
    report(prepare, { ok: true, version, cdi_device_ids: prepared.devices[0].cdi_device_ids });

    const unprepare = `/${service}/NodeUnprepareResources`;
    const unprepared = (await call(dra, definition, unprepare, { claims })).claims[claimUid];
    if (!unprepared || unprepared.error !== '') {
      fail(unprepare, `unexpected answer ${JSON.stringify(unprepared)}`);
    }
    report(unprepare, { ok: true, version });
  }
  for (const version of info.supported_versions.filter((v) => HEALTH_VERSIONS[v])) {
    const { proto, service } = HEALTH_VERSIONS[version];
    const watch = `/${service}/NodeWatchResources`;
    const health = await firstOfStream(dra, load(proto)[service], watch, {});
    report(watch, { ok: true, version, devices: health.devices.length });
  }
  dra.close();
}

main().catch((error) => fail('main', String(error && error.stack || error)));
