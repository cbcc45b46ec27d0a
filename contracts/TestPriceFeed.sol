// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title Paygate test price feed
/// @notice A price feed for Paygate's local chain with the read surface of Chainlink's AggregatorV3Interface
/// (`decimals`, `description`, `version`, `latestRoundData`, `getRoundData`), whose rounds the deployer writes field by
/// field. Tests use it to serve a price and to make a round stale, incomplete, carried over from an earlier round
/// (`answeredInRound < roundId`) or non-positive; with answer 0 (up) or 1 (down) and `startedAt` as the time of the
/// change, it plays an L2 sequencer uptime feed.
/// @dev Written for Paygate, without dependencies. Nothing here is checked: writing inconsistent rounds is the point.
contract TestPriceFeed {
    struct Round {
        int256 answer;
        uint256 startedAt;
        uint256 updatedAt;
        uint80 answeredInRound;
        bool exists;
    }

    uint256 public constant version = 1;

    address public immutable owner;
    uint8 public immutable decimals;
    string public description;
    /// @notice The round `latestRoundData` answers; 0 until the first round is written.
    uint80 public latestRound;

    mapping(uint80 => Round) private rounds;

    event RoundWritten(uint80 indexed roundId, int256 answer, uint256 startedAt, uint256 updatedAt);

    error NotOwner(address caller);
    error NoSuchRound(uint80 roundId);

    constructor(uint8 decimals_, string memory description_) {
        owner = msg.sender;
        decimals = decimals_;
        description = description_;
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        _;
    }

    /// @notice Writes round `roundId` with every field given and makes it the latest round.
    function setRound(
        uint80 roundId,
        int256 answer,
        uint256 startedAt,
        uint256 updatedAt,
        uint80 answeredInRound
    ) public onlyOwner {
        rounds[roundId] = Round(answer, startedAt, updatedAt, answeredInRound, true);
        latestRound = roundId;
        emit RoundWritten(roundId, answer, startedAt, updatedAt);
    }

    /// @notice Writes the next round: `answer`, started and updated at `updatedAt`, answered in itself.
    function setAnswer(int256 answer, uint256 updatedAt) external {
        uint80 roundId = latestRound + 1;
        setRound(roundId, answer, updatedAt, updatedAt, roundId);
    }

    /// @notice Changes only the times of the latest round, e.g. to make it stale.
    function setTimes(uint256 startedAt, uint256 updatedAt) external {
        Round storage round = rounds[latestRound];
        if (!round.exists) revert NoSuchRound(latestRound);
        setRound(latestRound, round.answer, startedAt, updatedAt, round.answeredInRound);
    }

    function getRoundData(
        uint80 roundId
    ) public view returns (uint80, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound) {
        Round storage round = rounds[roundId];
        if (!round.exists) revert NoSuchRound(roundId);
        return (roundId, round.answer, round.startedAt, round.updatedAt, round.answeredInRound);
    }

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        return getRoundData(latestRound);
    }
}
