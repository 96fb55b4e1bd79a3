// THROWAWAY: deploy + exercise contracts on anvil. Deleted after use.
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import {
  createPublicClient, createWalletClient, http, encodeAbiParameters, keccak256, parseEventLogs, type Hex, type Abi,
  BaseError, ContractFunctionRevertedError, zeroAddress, encodeFunctionData,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { foundry } from 'viem/chains'
import * as A from '../src/chain/generated/artifacts.ts'
import { orderTupleAbi } from '../src/wire/hashOrder.ts'

const port: number = await new Promise((res) => { const s = createServer(); s.listen(0, () => { const p = (s.address() as any).port; s.close(() => res(p)) }) })
const anvil = spawn('/work/main/node_modules/.bin/anvil', ['--port', String(port), '--silent'], { stdio: 'inherit' })
const rpc = `http://127.0.0.1:${port}`
const keys: Hex[] = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
]
const [relayer, consumer, payee, attestor] = keys.map((k) => privateKeyToAccount(k))
const pub = createPublicClient({ chain: foundry, transport: http(rpc) })
const wallet = (acc = relayer!) => createWalletClient({ account: acc, chain: foundry, transport: http(rpc) })
let failures = 0
const allErrors = Object.entries(A).filter(([k]) => k.endsWith('Abi')).flatMap(([, v]) => (v as any[]).filter((x) => x.type === 'error'))
const eq = (a: string, b: string, msg: string) => ok(a.toLowerCase() === b.toLowerCase(), `${msg}: ${a}`)
const ok = (cond: boolean, msg: string) => { console.log(`${cond ? 'ok  ' : 'FAIL'} ${msg}`); if (!cond) failures++ }

try {
  for (let i = 0; i < 50; i++) { try { await pub.getChainId(); break } catch { await Bun.sleep(100) } }
  async function deploy(abi: Abi, bytecode: Hex, args: unknown[] = []) {
    const hash = await wallet().deployContract({ abi, bytecode, args } as any)
    const r = await pub.waitForTransactionReceipt({ hash })
    if (!r.contractAddress || r.status !== 'success') throw new Error('deploy failed')
    return r.contractAddress
  }
  async function send(address: Hex, abi: Abi, functionName: string, args: unknown[], acc = relayer!) {
    const hash = await wallet(acc).writeContract({ address, abi, functionName, args } as any)
    const r = await pub.waitForTransactionReceipt({ hash })
    if (r.status !== 'success') throw new Error(`${functionName} reverted`)
    return r
  }
  async function revertOf(address: Hex, abi: Abi, functionName: string, args: unknown[], acc = relayer!): Promise<string> {
    try {
      await pub.simulateContract({ address, abi: [...abi, ...allErrors], functionName, args, account: acc } as any)
      return 'NO REVERT'
    } catch (e) {
      const err = (e as BaseError).walk((x) => x instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null
      if (!err) return `??? ${(e as Error).message.slice(0, 200)}`
      if (err.data?.errorName === 'Error') return String(err.data.args?.[0])
      if (err.data) return `${err.data.errorName}(${(err.data.args ?? []).map(String).join(',')})`
      return err.reason ?? err.shortMessage
    }
  }

  const broker = await deploy(A.brokerAbi, A.brokerBytecode)
  const token = await deploy(A.mockEIP3009TokenAbi, A.mockEIP3009TokenBytecode, ['USD Coin', '2'])
  const alloc = await deploy(A.allocationAdapterAbi, A.allocationAdapterBytecode, [broker, relayer!.address])
  console.log({ broker, token, alloc })

  const domain = await pub.readContract({ address: token, abi: A.mockEIP3009TokenAbi, functionName: 'eip712Domain' })
  ok(domain[1] === 'USD Coin' && domain[2] === '2' && Number(domain[3]) === 31337 && domain[4].toLowerCase() === token, `eip712Domain ${domain.slice(1, 5)}`)
  ok((await pub.readContract({ address: token, abi: A.mockEIP3009TokenAbi, functionName: 'decimals' })) === 6, 'decimals 6')

  await send(alloc, A.allocationAdapterAbi, 'configureVault', [7n, 1n])
  await send(token, A.mockEIP3009TokenAbi, 'mint', [consumer!.address, 10_000_000n])

  const mkOrder = (over: Partial<any> = {}) => ({
    consumer: consumer!.address, adapter: alloc, params: encodeAbiParameters([{ type: 'uint256' }], [7n]), payToken: token,
    payee: payee!.address, amount: 1_000_000n, nonce: BigInt(Math.floor(Math.random() * 1e9)), feeBps: 250, ...over,
  })
  const sign = async (order: any, validBefore = 2n ** 40n, tok = token, name = 'USD Coin') => {
    const nonce = keccak256(encodeAbiParameters(orderTupleAbi, [order]))
    const sig = await consumer!.signTypedData({
      domain: { name, version: '2', chainId: 31337, verifyingContract: tok },
      types: { ReceiveWithAuthorization: [
        { name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' },
        { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' }] },
      primaryType: 'ReceiveWithAuthorization',
      message: { from: order.consumer, to: broker, value: order.amount, validAfter: 0n, validBefore, nonce },
    })
    const r = sig.slice(0, 66) as Hex, s = ('0x' + sig.slice(66, 130)) as Hex, v = parseInt(sig.slice(130, 132), 16)
    return { nonce, args: [order, 0n, validBefore, v, r, s] }
  }

  const order = mkOrder()
  const onchainHash = await pub.readContract({ address: broker, abi: A.brokerAbi, functionName: 'hashOrder', args: [order] })
  const { nonce, args } = await sign(order)
  ok(onchainHash === nonce, `hashOrder matches TS (${onchainHash})`)

  eq(await revertOf(broker, A.brokerAbi, 'broker', (await sign(mkOrder({ feeBps: 10001 }))).args), 'FeeTooHigh()', 'FeeTooHigh')
  const rc = await send(broker, A.brokerAbi, 'broker', args)
  const logs = parseEventLogs({ abi: [...A.brokerAbi, ...A.allocationAdapterAbi], logs: rc.logs })
  const brokered = logs.find((l) => l.eventName === 'Brokered') as any
  const granted = logs.find((l) => l.eventName === 'AllocationGranted') as any
  ok(brokered?.args.fee === 25_000n && brokered.args.relayer === relayer!.address && brokered.args.orderHash === nonce, 'Brokered event')
  ok(granted?.args.vaultId === 7n && granted.args.slot === 0n, 'AllocationGranted slot 0')
  const bal = (a: Hex, t = token) => pub.readContract({ address: t, abi: A.mockEIP3009TokenAbi, functionName: 'balanceOf', args: [a] })
  ok((await bal(payee!.address)) === 975_000n && (await bal(relayer!.address)) === 25_000n && (await bal(broker)) === 0n, 'payouts')
  eq(await revertOf(broker, A.brokerAbi, 'broker', args), 'authorization used', 'replay → authorization used')
  eq(await revertOf(broker, A.brokerAbi, 'broker', (await sign(mkOrder())).args), 'AllocationSoldOut(7)', 'AllocationSoldOut(7)')
  const unconf = await sign(mkOrder({ params: encodeAbiParameters([{ type: 'uint256' }], [99n]) }))
  eq(await revertOf(broker, A.brokerAbi, 'broker', unconf.args), 'AllocationSoldOut(99)', 'unconfigured vault')
  const expired = await sign(mkOrder(), 1n)
  eq(await revertOf(broker, A.brokerAbi, 'broker', expired.args), 'authorization expired', 'expired')
  const bad = await sign(mkOrder())
  ;(bad.args[0] as any).amount = 2n
  eq(await revertOf(broker, A.brokerAbi, 'broker', bad.args), 'invalid signature', 'tampered → invalid signature')
  const badV = await sign(mkOrder()); (badV.args as any)[3] = 5
  eq(await revertOf(broker, A.brokerAbi, 'broker', badV.args), 'invalid signature', 'bad v → invalid signature')
  eq(await revertOf(token, A.mockEIP3009TokenAbi, 'receiveWithAuthorization', [consumer!.address, broker, 1n, 0n, 1n, nonce, 27, nonce, nonce]), 'caller must be the payee', 'payee')
  eq(await revertOf(token, A.mockEIP3009TokenAbi, 'transferWithAuthorization', [consumer!.address, broker, 1n, 2n ** 40n, 2n ** 41n, nonce, 27, nonce, nonce]), 'authorization not yet valid', 'not yet valid')
  eq(await revertOf(alloc, A.allocationAdapterAbi, 'grant', [nonce, consumer!.address, 1n, '0x']), 'NotBroker()', 'NotBroker')
  ok(String(await revertOf(alloc, A.allocationAdapterAbi, 'configureVault', [1n, 1n], consumer)).startsWith('OwnableUnauthorizedAccount'), 'onlyOwner')

  // reentrancy
  const re = await deploy(A.reentrantAdapterAbi, A.reentrantAdapterBytecode, [broker])
  eq(await revertOf(broker, A.brokerAbi, 'broker', (await sign(mkOrder({ adapter: re }))).args), 'ReentrancyGuardReentrantCall()', 'reentrancy')
  // false-return token
  const ft = await deploy(A.falseReturnTokenAbi, A.falseReturnTokenBytecode, ['USD Coin', '2'])
  await send(ft, A.falseReturnTokenAbi, 'mint', [consumer!.address, 10_000_000n])
  await send(alloc, A.allocationAdapterAbi, 'configureVault', [7n, 100n])
  eq(await revertOf(broker, A.brokerAbi, 'broker', (await sign(mkOrder({ payToken: ft }), 2n ** 40n, ft)).args), `SafeERC20FailedOperation(${ft})`, 'false-return token')
  eq(await revertOf(broker, A.brokerAbi, 'broker', (await sign(mkOrder({ payToken: ft, feeBps: 0 }), 2n ** 40n, ft)).args), `SafeERC20FailedOperation(${ft})`, 'false-return token, zero fee')

  // express lane
  const auction = await deploy(A.mockExpressLaneAuctionAbi, A.mockExpressLaneAuctionBytecode)
  const el = await deploy(A.expressLaneAdapterAbi, A.expressLaneAdapterBytecode, [broker, auction, payee!.address, relayer!.address])
  const elOrder = async () => (await sign(mkOrder({ adapter: el, params: '0x' }))).args
  eq(await revertOf(broker, A.brokerAbi, 'broker', await elOrder()), 'NoLaneControl()', 'no lane control (all unset, round 0)')
  await send(auction, A.mockExpressLaneAuctionAbi, 'setCurrentRound', [5n])
  await send(auction, A.mockExpressLaneAuctionAbi, 'setResolvedRounds', [{ expressLaneController: consumer!.address, round: 5n }, { expressLaneController: payee!.address, round: 4n }])
  eq(await revertOf(broker, A.brokerAbi, 'broker', await elOrder()), 'NoLaneControl()', 'other controller this round')
  await send(auction, A.mockExpressLaneAuctionAbi, 'setResolvedRounds', [{ expressLaneController: consumer!.address, round: 4n }, { expressLaneController: payee!.address, round: 5n }])
  const elRc = await send(broker, A.brokerAbi, 'broker', await elOrder())
  const lg = parseEventLogs({ abi: A.expressLaneAdapterAbi, logs: elRc.logs, eventName: 'LaneGranted' })[0]
  ok(lg?.args.round === 5n, 'LaneGranted round 5')
  eq(await revertOf(el, A.expressLaneAdapterAbi, 'setLaneOperator', [zeroAddress]), 'ZeroAddress()', 'ZeroAddress setLaneOperator')

  // attested
  const at = await deploy(A.attestedAdapterAbi, A.attestedAdapterBytecode, [relayer!.address, attestor!.address, relayer!.address])
  const claim = keccak256('0x1234')
  const fakeHash = keccak256('0x99')
  const now = (await pub.getBlock()).timestamp
  const attest = async (notAfter: bigint, signer = attestor!, domainName = 'AttestedAdapter') => {
    const sig = await signer.signTypedData({ domain: { name: domainName, version: '1', chainId: 31337, verifyingContract: at },
      types: { Attestation: [{ name: 'orderHash', type: 'bytes32' }, { name: 'consumer', type: 'address' }, { name: 'claim', type: 'bytes32' }, { name: 'notAfter', type: 'uint64' }] },
      primaryType: 'Attestation', message: { orderHash: fakeHash, consumer: consumer!.address, claim, notAfter } })
    return encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint64' }, { type: 'bytes' }], [claim, notAfter, sig])
  }
  const grantArgs = async (...a: Parameters<typeof attest>) => [fakeHash, consumer!.address, 1n, await attest(...a)]
  const arc = await send(at, A.attestedAdapterAbi, 'grant', await grantArgs(now + 600n))
  ok(parseEventLogs({ abi: A.attestedAdapterAbi, logs: arc.logs, eventName: 'AttestedGranted' })[0]?.args.claim === claim, 'AttestedGranted')
  eq(await revertOf(at, A.attestedAdapterAbi, 'grant', await grantArgs(now + 600n, payee)), 'BadAttestation()', 'BadAttestation wrong signer')
  eq(await revertOf(at, A.attestedAdapterAbi, 'grant', await grantArgs(now + 600n, attestor, 'Other')), 'BadAttestation()', 'BadAttestation wrong domain')
  eq(await revertOf(at, A.attestedAdapterAbi, 'grant', await grantArgs(1n)), 'AttestationExpired()', 'AttestationExpired')
  const junk = encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint64' }, { type: 'bytes' }], [claim, now + 600n, '0x1234'])
  eq(await revertOf(at, A.attestedAdapterAbi, 'grant', [fakeHash, consumer!.address, 1n, junk]), 'BadAttestation()', 'BadAttestation short sig')
  eq(await revertOf(at, A.attestedAdapterAbi, 'grant', [fakeHash, consumer!.address, 1n, junk], payee), 'NotBroker()', 'attested NotBroker')

  // registry set
  const reg = await deploy(A.lienRegistryAbi, A.lienRegistryBytecode, [relayer!.address])
  const inbox = await deploy(A.lienInboxAbi, A.lienInboxBytecode, [reg])
  const pool = await deploy(A.lienPoolAbi, A.lienPoolBytecode, [reg, token])
  const escrow = await deploy(A.lienEscrowAbi, A.lienEscrowBytecode, [reg, pool, token])
  await send(reg, A.lienRegistryAbi, 'bind', [inbox, escrow])
  await send(pool, A.lienPoolAbi, 'setEscrow', [escrow])
  const lienId = keccak256('0xabcd')
  const block = await pub.getBlock()
  await send(inbox, A.lienInboxAbi, 'propose', [lienId, consumer!.address, block.timestamp + 3600n])
  eq(await revertOf(inbox, A.lienInboxAbi, 'confirm', [lienId]), 'NotBorrower()', 'NotBorrower')
  const sig = await consumer!.signTypedData({ domain: { name: 'LienInbox', version: '1', chainId: 31337, verifyingContract: inbox },
    types: { Confirmation: [{ name: 'lienId', type: 'bytes32' }] }, primaryType: 'Confirmation', message: { lienId } })
  const [r, s, v] = [sig.slice(0, 66) as Hex, ('0x' + sig.slice(66, 130)) as Hex, parseInt(sig.slice(130, 132), 16)]
  const crc = await send(inbox, A.lienInboxAbi, 'confirmBySig', [lienId, v, r, s])
  const ev = parseEventLogs({ abi: [...A.lienInboxAbi, ...A.lienRegistryAbi], logs: crc.logs }).map((l) => l.eventName)
  ok(ev.join() === 'LienConfirmed,LienRecorded', `confirm events ${ev}`)
  ok(await pub.readContract({ address: reg, abi: A.lienRegistryAbi, functionName: 'isEncumbered', args: [lienId] }), 'encumbered')
  await send(token, A.mockEIP3009TokenAbi, 'mint', [payee!.address, 5_000_000n])
  await send(token, A.mockEIP3009TokenAbi, 'approve', [pool, 5_000_000n], payee)
  await send(pool, A.lienPoolAbi, 'deposit', [5_000_000n], payee)
  const before = await bal(consumer!.address)
  await send(pool, A.lienPoolAbi, 'fund', [lienId, 2_000_000n], payee)
  ok((await bal(consumer!.address)) - before === 2_000_000n, 'borrower paid')
  await send(token, A.mockEIP3009TokenAbi, 'approve', [escrow, 2_000_000n], consumer)
  await send(escrow, A.lienEscrowAbi, 'repay', [lienId, 500_000n], consumer)
  eq(await revertOf(escrow, A.lienEscrowAbi, 'repay', [lienId, 2_000_000n], consumer), `RepaymentExceedsDebt(${lienId},1500000)`, 'overpay')
  const rrc = await send(escrow, A.lienEscrowAbi, 'repay', [lienId, 1_500_000n], consumer)
  const rev = parseEventLogs({ abi: [...A.lienEscrowAbi, ...A.lienRegistryAbi, ...A.lienPoolAbi], logs: rrc.logs }).map((l) => l.eventName)
  ok(rev.join() === 'RepaymentCredited,Repaid,LienReleased' || rev.includes('LienReleased'), `repay events ${rev}`)
  ok(!(await pub.readContract({ address: reg, abi: A.lienRegistryAbi, functionName: 'isEncumbered', args: [lienId] })), 'released')
  ok((await pub.readContract({ address: pool, abi: A.lienPoolAbi, functionName: 'deposits', args: [payee!.address] })) === 5_000_000n, 'lender credited')
  void encodeFunctionData
} finally {
  anvil.kill('SIGTERM')
}
console.log(failures ? `${failures} FAILURES` : 'all ok')
process.exit(failures ? 1 : 0)
